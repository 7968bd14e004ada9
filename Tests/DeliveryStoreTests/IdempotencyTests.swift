import DeliveryStore
import Foundation
import Store
import TestSupport
import XCTest

final class IdempotencyTests: StoreTestCase {
    private func send(_ convo: String, msgID: String, key: String, epoch: Int64 = 0) throws -> IdempotentOutcome {
        try store.idempotent(caller: user("alice"), method: "blue.catbird.mls.sendMessage", key: key) { transaction in
            let appended = try transaction.appendMessage(message(convo, msgID, epoch: epoch))
            return StoredResponse(status: 200, body: Array("seq=\(appended.seq)".utf8))
        }
    }

    func test_repeatedKey_returnsTheFirstResponse_withoutRunningTheBody() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        let first = try send(convo, msgID: "m1", key: "k1")
        XCTAssertEqual(first, .fresh(StoredResponse(status: 200, body: Array("seq=1".utf8))))
        let again = try send(convo, msgID: "m2", key: "k1")
        XCTAssertEqual(again, .replayed(first.response))
        XCTAssertTrue(again.isReplay)
        XCTAssertEqual(try store.messages(convoID: convo).messages.map(\.msgID), ["m1"], "the body did not run again")

        // The key is scoped by caller and method.
        XCTAssertEqual(try send(convo, msgID: "m3", key: "k2").response.body, Array("seq=2".utf8))
        let otherMethod = try store.idempotent(caller: user("alice"), method: "other", key: "k1") { _ in
            StoredResponse(status: 201, body: [])
        }
        XCTAssertEqual(otherMethod, .fresh(StoredResponse(status: 201, body: [])))
    }

    func test_concurrentDuplicates_applyTheEffectOnce() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        let store = self.store, sender = user("alice")
        let outcomes = Locked<[IdempotentOutcome]>([])
        let failures = Locked<[String]>([])
        runOnThreads(8) { thread in
            do {
                let outcome = try store.idempotent(caller: sender, method: "send", key: "same") { transaction in
                    let appended = try transaction.appendMessage(NewMessage(
                        convoID: convo, msgID: "t\(thread)", epoch: 0, senderDID: sender, content: .ciphertext([1])))
                    return StoredResponse(status: 200, body: Array("t\(thread) seq=\(appended.seq)".utf8))
                }
                outcomes.withLock { $0.append(outcome) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.value, [])
        XCTAssertEqual(outcomes.value.filter { !$0.isReplay }.count, 1)
        XCTAssertEqual(Set(outcomes.value.map(\.response)).count, 1, "every caller saw the same response")
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages"), 1)
    }

    func test_failingBody_storesNothing_andCanBeRetried() throws {
        let convo = try makeConvo([leaf(0, "alice")], epoch: 2)
        let stale = try? store.idempotent(caller: user("alice"), method: "send", key: "k") { transaction in
            _ = try transaction.appendMessage(message(convo, "m", epoch: 1))
            return StoredResponse(status: 200, body: [])
        }
        XCTAssertNil(stale)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM idempotency"), 0)
        struct CallerError: Error {}
        XCTAssertThrowsError(try store.idempotent(caller: user("alice"), method: "send", key: "k") { transaction in
            _ = try transaction.appendMessage(message(convo, "m", epoch: 2))
            throw CallerError()
        }) { XCTAssertTrue($0 is CallerError, "the body's own error comes back as it is") }
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages"), 0, "the effect rolled back with the error")
        XCTAssertFalse(try send(convo, msgID: "m", key: "k", epoch: 2).isReplay)
        XCTAssertTrue(try send(convo, msgID: "m", key: "k", epoch: 2).isReplay)
    }

    func test_expiredRecords_areCleanedUp_andTheKeyIsFreshAgain() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        _ = try send(convo, msgID: "m1", key: "old")
        _ = try send(convo, msgID: "m2", key: "new")
        try fixture.database.execute("UPDATE idempotency SET created_at = now() - interval '25 hours' WHERE key = 'old'")
        // An expired record is not replayed even before cleanup.
        XCTAssertFalse(try send(convo, msgID: "m3", key: "old").isReplay)
        try fixture.database.execute("UPDATE idempotency SET created_at = now() - interval '25 hours' WHERE key = 'old'")
        XCTAssertEqual(try store.deleteExpiredIdempotencyRecords(), 1)
        XCTAssertEqual(try fixture.database.query("SELECT key FROM idempotency").map { try $0.string("key") }, ["new"])
        XCTAssertTrue(try send(convo, msgID: "m4", key: "new").isReplay)
    }
}
