import Basics
import DeliveryStore
import Foundation
import Store
import TestSupport
import XCTest

/// The stored-message quota (MESSAGE_QUOTA_BYTES) in the store: each application message costs its
/// sender its stored ciphertext bytes + 256, charged in the message's own transaction and given
/// back when retention purges it.
final class MessageQuotaTests: StoreTestCase {
    static let quota: Int64 = 3000
    override var configuration: DeliveryStore.Configuration { .init(messageQuotaBytes: Self.quota) }

    func bytes(_ count: Int) -> [UInt8] { [UInt8](repeating: 7, count: count) }
    func usage(_ name: String) throws -> Int64 { try store.messageUsage(did: user(name)) }

    /// In one batch each sender's messages are judged in order, as one append after another would
    /// be: the one that does not fit is refused alone, and a later, smaller one still fits.
    func test_batch_refusesOnlyTheMessagesThatDoNotFit_inOrder() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        let outcomes = store.appendMessages([
            BatchedMessage(message(convo, "a1", bytes: bytes(900))),
            BatchedMessage(message(convo, "b1", sender: "bob", bytes: bytes(2000))),
            BatchedMessage(message(convo, "a2", bytes: bytes(900))),
            BatchedMessage(message(convo, "a3", bytes: bytes(900))),
            BatchedMessage(message(convo, "a4", bytes: bytes(400))),
            BatchedMessage(message(convo, "a5", bytes: bytes(1))),
        ])
        XCTAssertEqual(try outcomes[0].result.get().seq, 1)
        XCTAssertEqual(try outcomes[1].result.get().seq, 2)
        XCTAssertEqual(try outcomes[2].result.get().seq, 3)
        XCTAssertEqual(outcomes[3].result, .failure(.messageQuotaExceeded(used: 2312, quota: Self.quota)))
        XCTAssertEqual(try outcomes[4].result.get().seq, 4, "seqs stay dense around the refusal")
        XCTAssertEqual(outcomes[5].result, .failure(.messageQuotaExceeded(used: 2968, quota: Self.quota)))
        XCTAssertEqual(try usage("alice"), 1156 + 1156 + 656)
        XCTAssertEqual(try usage("bob"), 2256)
        XCTAssertEqual(try store.messages(convoID: convo).messages.map(\.msgID), ["a1", "b1", "a2", "a4"])

        // The single-message path (attachments, idempotency keys, thin mode) charges the same way:
        // a thin message costs its row, 256.
        let thin = NewMessage(convoID: convo, msgID: "t1", epoch: 0, senderDID: user("bob"),
                              content: .external(sha256: bytes(32), size: 1 << 20))
        XCTAssertEqual(try store.appendMessage(thin).seq, 5)
        XCTAssertEqual(try usage("bob"), 2512)
        XCTAssertEqual(deliveryError { try store.appendMessage(message(convo, "a6", bytes: bytes(100))) },
                       .messageQuotaExceeded(used: 2968, quota: Self.quota))
        // A repeated msgId is answered as first stored and charges nothing.
        XCTAssertTrue(try store.appendMessage(message(convo, "a1", bytes: bytes(900))).duplicate)
        XCTAssertEqual(try usage("alice"), 2968)
    }

    /// Retention gives back exactly what the purged application messages were charged (commits
    /// cost nothing), and the sender can send again.
    func test_purge_givesTheChargeBack() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        for (id, size) in [("old1", 1000), ("old2", 700), ("new", 500)] {
            _ = try store.appendMessage(message(convo, id, bytes: bytes(size)))
        }
        _ = try store.applyCommit(commit(convo, from: 0, members: [leaf(0, "alice"), leaf(1, "bob")], bytes: bytes(2000)))
        XCTAssertEqual(try usage("alice"), 1256 + 956 + 756)
        XCTAssertEqual(deliveryError { try store.appendMessage(message(convo, "refused", epoch: 1, bytes: bytes(300))) },
                       .messageQuotaExceeded(used: 2968, quota: Self.quota))
        try fixture.database.execute(
            "UPDATE messages SET created_at = created_at - interval '40 days' WHERE msg_id IN ('old1', 'old2', 'commit-0')")

        let cutoff = Date().addingTimeInterval(-30 * 86_400)
        XCTAssertEqual(try store.purgeExpired(.messages, createdBefore: cutoff, limit: 2)
                       + store.purgeExpired(.messages, createdBefore: cutoff, limit: 2), 3)
        XCTAssertEqual(try usage("alice"), 756)
        XCTAssertEqual(try store.appendMessage(message(convo, "again", epoch: 1, bytes: bytes(300))).seq, 5)
        XCTAssertEqual(try usage("alice"), 756 + 556)
        let stored = try fixture.database.query("""
            SELECT coalesce(sum(octet_length(ciphertext) + 256), 0)::int8 AS n FROM messages
            WHERE sender_did = $1 AND message_type = 'app'
            """, [did("alice")])[0].int64("n")
        XCTAssertEqual(stored, try usage("alice"), "the charge is what is stored")
    }

    /// Many threads of one sender, through batches and single appends into several conversations
    /// at once: never past the quota, and nothing refused that would have fit.
    func test_concurrentAppendsOfOneSender_stayExactlyWithinTheQuota() throws {
        // A quota that about half of the messages fit in.
        let quota: Int64 = 24_000
        let fixture = try StoreFixture(configuration: .init(messageQuotaBytes: quota))
        defer { fixture.drop() }
        let store = fixture.store
        let convos = try (0..<4).map { _ in
            try store.createConvo(ConvoCreation(groupID: randomGroupID(), cipherSuite: 1, epoch: 0, publicState: [1], groupInfo: [2],
                                                creatorDID: user("alice"), members: [leaf(0, "alice")])).convo.convoID
        }
        let batcher = MessageBatcher(store: store, lanes: 2, maxBatch: 8)
        let refused = Locked<[Int64]>([])
        let failures = Locked<[String]>([])
        let sender = user("alice")
        runOnThreads(8) { thread in
            for index in 0..<12 {
                let size = 100 + (thread * 37 + index * 11) % 300
                let message = NewMessage(convoID: convos[(thread + index) % convos.count], msgID: "m-\(thread)-\(index)",
                                         epoch: 0, senderDID: sender, content: .ciphertext([UInt8](repeating: 1, count: size)))
                let result: Result<AppendedMessage, DeliveryStoreError>
                if index % 3 == 0 {
                    result = Result { () throws(DeliveryStoreError) in try store.appendMessage(message) }
                } else {
                    result = batcher.append(BatchedMessage(message)).result
                }
                switch result {
                case .success: break
                case .failure(.messageQuotaExceeded): refused.withLock { $0.append(Int64(size) + 256) }
                case .failure(let error): failures.withLock { $0.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(failures.value, [])
        let used = try store.messageUsage(did: sender)
        let stored = try fixture.database.query("""
            SELECT coalesce(sum(octet_length(ciphertext) + 256), 0)::int8 AS n, count(*) AS c FROM messages
            WHERE sender_did = $1
            """, [did("alice")])[0]
        XCTAssertEqual(try stored.int64("n"), used)
        XCTAssertEqual(try stored.int("c") + refused.value.count, 96)
        XCTAssertLessThanOrEqual(used, quota)
        XCTAssertFalse(refused.value.isEmpty, "the test must reach the quota")
        // The usage only grew, so every refused message would still not fit.
        for charge in refused.value { XCTAssertGreaterThan(used + charge, quota) }
    }

    /// A batch reads its senders' usage without locking it and charges at its end, under the row
    /// lock. When another transaction charged the sender meanwhile, the batch is judged again with
    /// the row locked first: exact, whatever moved under it. It waits only in its last statement.
    func test_batch_whoseSenderWasChargedMeanwhile_isJudgedByTheNewUsage() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        _ = try store.appendMessage(message(convo, "a1", bytes: bytes(1000)))
        XCTAssertEqual(try usage("alice"), 1256)
        let store = self.store, database = fixture.database
        let outcomes = Locked<[BatchedAppend]>([])
        let batchDone = DispatchSemaphore(value: 0)
        var sawBatchWaitingInItsCharge = false
        try database.withConnection { other in
            // Another writer of alice's row (an append on another node, say), not yet committed.
            try other.execute("BEGIN")
            try other.execute("UPDATE message_usage SET bytes = bytes + 1000 WHERE did = $1", [did("alice")])
            // 1256 + 1156 fits 3000 as the batch reads it; 2256 + 1156 does not.
            let batch = [BatchedMessage(message(convo, "a2", bytes: bytes(900))),
                         BatchedMessage(message(convo, "b1", sender: "bob", bytes: bytes(10)))]
            Thread.detachNewThread {
                outcomes.withLock { $0 = store.appendMessages(batch) }
                batchDone.signal()
            }
            // Until the batch statement itself (not a lock statement before it) waits.
            sawBatchWaitingInItsCharge = try fixture.sawALockWait(inStatementWith: "WITH RECURSIVE input AS")
            try other.execute("COMMIT")
        }
        batchDone.wait()
        XCTAssertTrue(sawBatchWaitingInItsCharge, "the batch never waited for alice's row in its last statement")
        let results = outcomes.value.map(\.result)
        XCTAssertEqual(results.count, 2)
        XCTAssertEqual(results.first, .failure(.messageQuotaExceeded(used: 2256, quota: Self.quota)))
        XCTAssertEqual(try results.last?.get().seq, 2)
        XCTAssertEqual(outcomes.value.map(\.replayRecorded), [true, true])
        XCTAssertEqual(try usage("alice"), 2256)
        XCTAssertEqual(try usage("bob"), 266)
        XCTAssertEqual(try store.messages(convoID: convo).messages.map(\.msgID), ["a1", "b1"])
    }
}

/// The quota migration on a database that already holds messages: each sender starts charged
/// exactly for the application messages it has stored.
final class MessageQuotaMigrationTests: XCTestCase {
    func test_migration_chargesTheMessagesAlreadyStored() throws {
        let fresh = try TestDatabase(.database, prefix: "dsquota", poolSize: 1)
        defer { fresh.drop() }
        let all = try FileManager.default.contentsOfDirectory(atPath: TestDatabase.migrations.path).filter { $0.hasSuffix(".sql") }.sorted()
        let quotas = try XCTUnwrap(all.first { $0.hasSuffix("_quotas.sql") })
        let before = NSTemporaryDirectory() + "catbird-migrations-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: before, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: before) }
        for name in all where name < quotas {
            try FileManager.default.copyItem(atPath: TestDatabase.migrations.path + "/" + name, toPath: before + "/" + name)
        }
        _ = try Migrator(directory: URL(fileURLWithPath: before)).migrate(fresh.database)

        let alice = "did:plc:alice2aaaaaaaaaaaaaaaaaa", bob = "did:plc:bob2aaaaaaaaaaaaaaaaaaaa"
        try fresh.database.execute("""
            INSERT INTO convos (convo_id, group_id, cipher_suite, epoch, public_state, creator_did)
            VALUES ('0a0b', '\\x0a0b', 1, 1, '\\x00', $1)
            """, [alice])
        try fresh.database.execute("""
            INSERT INTO messages (convo_id, seq, msg_id, epoch, message_type, sender_did, ciphertext, content_hash, size)
            VALUES ('0a0b', 1, 'c', 0, 'commit', $1, '\\x0102', NULL, 2),
                   ('0a0b', 2, 'm1', 1, 'app', $1, decode(repeat('ab', 100), 'hex'), NULL, 100),
                   ('0a0b', 3, 'm2', 1, 'app', $1, decode(repeat('ab', 40), 'hex'), NULL, 40),
                   ('0a0b', 4, 't1', 1, 'app', $2, NULL, decode(repeat('ab', 32), 'hex'), 5000)
            """, [alice, bob])

        let applied = try Migrator(directory: TestDatabase.migrations).migrate(fresh.database)
        XCTAssertTrue(applied.contains(quotas), "\(applied)")
        let rows = try fresh.database.query("SELECT did, bytes FROM message_usage ORDER BY did")
        XCTAssertEqual(try rows.map { "\(try $0.string("did")) \(try $0.int64("bytes"))" },
                       ["\(alice) \(100 + 256 + 40 + 256)", "\(bob) 256"])
    }
}
