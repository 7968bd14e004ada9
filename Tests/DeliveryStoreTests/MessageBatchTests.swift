import Basics
import Dispatch
import DeliveryStore
import Foundation
import Store
import Synchronization
import TestSupport
import XCTest

/// Group commit (`appendMessages`, `MessageBatcher`): per-message answers inside one transaction,
/// dense seqs under concurrency, and exact epoch checks against a racing commit.
final class MessageBatchTests: StoreTestCase {
    func replay(_ jti: String, iss: String? = nil) -> ReplayRecord {
        ReplayRecord(iss: iss ?? did("alice"), jti: jti, until: Date().addingTimeInterval(60))
    }

    func test_batchWithBadMessages_storesTheOthers_andRefusesEachBadOneAlone() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        let other = try makeConvo([leaf(0, "alice")])
        let first = try store.appendMessage(message(convo, "taken"))
        try store.database.execute("INSERT INTO auth_replay (iss, jti, expires_at) VALUES ($1, 'used', now() + interval '1 minute')",
                                   [did("alice")])
        let batch: [BatchedMessage] = [
            BatchedMessage(message(convo, "a1"), replay: replay("t1")),
            BatchedMessage(message(convo, "wrong-epoch", epoch: 1), replay: replay("t2")),
            BatchedMessage(message(convo, "stranger", sender: "mallory"), replay: replay("t3", iss: did("mallory"))),
            BatchedMessage(message(convo, "taken"), replay: replay("t4")),
            BatchedMessage(message(convo, "taken-by-bob-first", sender: "bob"), replay: replay("t5", iss: did("bob"))),
            BatchedMessage(message(other, "o1"), replay: replay("t6")),
            BatchedMessage(message(convo, "replayed"), replay: replay("used")),
            BatchedMessage(message("00ff", "nowhere"), replay: replay("t7")),
            BatchedMessage(message(convo, "a2"), replay: replay("t8")),
            BatchedMessage(message(convo, ""), replay: replay("t9")),
        ]
        _ = try store.appendMessage(message(convo, "taken-by-bob-first", sender: "alice"))
        let outcomes = store.appendMessages(batch)
        XCTAssertEqual(outcomes.count, batch.count)
        func seq(_ index: Int) -> Int64? { try? outcomes[index].result.get().seq }
        XCTAssertEqual(seq(0), 3)
        XCTAssertEqual(outcomes[1].result, .failure(.epochMismatch(current: 0)))
        XCTAssertEqual(outcomes[2].result, .failure(.notMember))
        let repeated = try outcomes[3].result.get()
        XCTAssertEqual([repeated.seq, repeated.epoch], [first.seq, 0])
        XCTAssertEqual(repeated.receivedAt, first.receivedAt)
        XCTAssertTrue(repeated.duplicate)
        XCTAssertEqual(outcomes[4].result, .failure(.messageIDConflict))
        XCTAssertEqual(seq(5), 1)
        XCTAssertEqual(outcomes[6].result, .failure(.tokenReplayed))
        XCTAssertEqual(outcomes[7].result, .failure(.convoNotFound))
        XCTAssertEqual(seq(8), 4)
        XCTAssertEqual(outcomes[9].result, .failure(.invalidArgument("empty msgID")))
        // Every token that reached the database is used up, whatever its message's answer.
        XCTAssertEqual(outcomes.map(\.replayRecorded), [true, true, true, true, true, true, true, true, true, false])
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM auth_replay WHERE jti LIKE 't%'"), 8)

        let stored = try store.messages(convoID: convo).messages
        XCTAssertEqual(stored.map(\.msgID), ["taken", "taken-by-bob-first", "a1", "a2"])
        XCTAssertEqual(stored.map(\.seq), [1, 2, 3, 4])
        let state = try store.loadConvo(convo)
        XCTAssertEqual(state.lastSeq, 4)
        XCTAssertEqual(state.lastMessageAt, try outcomes[8].result.get().receivedAt)
        // One messageEvent per stored message, dense event seqs after the creation's events.
        let events = try store.events(convoID: convo).filter { $0.kind == .messageEvent }
        XCTAssertEqual(events.suffix(2).map { $0.payload.contains("\"msgId\": \"a1\"") || $0.payload.contains("\"msgId\":\"a1\"") }, [true, false])
        let all = try store.events(convoID: convo)
        XCTAssertEqual(all.map(\.seq), Array(1...Int64(all.count)))
        XCTAssertEqual(state.lastEventSeq, Int64(all.count))
    }

    func test_batchHoldingTheSameMsgIdTwice_fallsBackToOneTransactionEach() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        let twice = [BatchedMessage(message(convo, "same")), BatchedMessage(message(convo, "same"))]
        let refused = store.appendMessages(twice)
        // The fallback runs each alone: the first is stored, the second is its duplicate.
        XCTAssertEqual(try refused[0].result.get().duplicate, false)
        XCTAssertEqual(try refused[1].result.get().duplicate, true)
        XCTAssertEqual(try refused[1].result.get().seq, try refused[0].result.get().seq)
    }

    func test_aCallerAtABusyLane_returnsAtOnce_andTheLeaderRunsItsBatch_afterCompletingItsOwn() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        let batcher = MessageBatcher(store: store, lanes: 1, maxBatch: 8)
        let leader = Thread.current
        let order = Mutex<[String]>([])
        let queued = DispatchSemaphore(value: 0)
        let secondDone = DispatchSemaphore(value: 0)
        let secondOn = Mutex<Thread?>(nil)
        let second = BatchedMessage(message(convo, "second", sender: "bob"))
        batcher.append(BatchedMessage(message(convo, "first"))) { outcome in
            order.withLock { $0.append("first \((try? outcome.result.get().seq).map(String.init) ?? "failed")") }
            // While the leader delivers its own batch, another caller arrives: it is queued and
            // its append returns without waiting for anything.
            Thread.detachNewThread {
                batcher.append(second) { outcome in
                    secondOn.withLock { $0 = Thread.current }
                    order.withLock { $0.append("second \((try? outcome.result.get().seq).map(String.init) ?? "failed")") }
                    secondDone.signal()
                }
                order.withLock { $0.append("second queued") }
                queued.signal()
            }
            XCTAssertEqual(queued.wait(timeout: .now() + 10), .success)
        }
        // The leader's append returned only after the batch it found queued: on this thread.
        XCTAssertEqual(secondDone.wait(timeout: .now()), .success)
        XCTAssertEqual(order.withLock { $0 }, ["first 1", "second queued", "second 2"])
        XCTAssertTrue(secondOn.withLock { $0 } === leader)
    }

    func test_aCallerThatMustNotBlock_handsItsLeadToTheGivenRunner_andReturnsAtOnce() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        let batcher = MessageBatcher(store: store, lanes: 1, maxBatch: 8)
        let caller = Thread.current
        let leads = Mutex<[@Sendable () -> Void]>([])
        let done = DispatchSemaphore(value: 0)
        let completedOn = Mutex<[Thread]>([])
        let seqs = Mutex<[Int64]>([])
        let keep: @Sendable (_ batches: @escaping @Sendable () -> Void) -> Void = { batches in leads.withLock { $0.append(batches) } }
        for (index, sender) in ["alice", "bob"].enumerated() {
            batcher.append(BatchedMessage(message(convo, "m\(index)", sender: sender)), lead: keep) { outcome in
                completedOn.withLock { $0.append(Thread.current) }
                seqs.withLock { $0.append((try? outcome.result.get().seq) ?? -1) }
                done.signal()
            }
        }
        // Nothing ran: the first caller's lead was handed over, the second found the lane busy.
        XCTAssertEqual(seqs.withLock { $0 }, [])
        XCTAssertEqual(leads.withLock { $0.count }, 1)
        let lead = leads.withLock { $0[0] }
        Thread.detachNewThread { lead() }
        for _ in 0..<2 { XCTAssertEqual(done.wait(timeout: .now() + 10), .success) }
        XCTAssertEqual(seqs.withLock { $0 }, [1, 2])
        XCTAssertFalse(completedOn.withLock { $0 }.contains { $0 === caller })
    }

    func test_concurrentSendersThroughTheBatcher_getDenseUniqueSeqs_inEachSendersOrder() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        let spread = try (0..<3).map { _ in try makeConvo([leaf(0, "alice"), leaf(1, "bob")]) }
        let batcher = MessageBatcher(store: store, lanes: 2, maxBatch: 16)
        let threads = 16, perThread = 30
        let seqs = Locked<[String: [Int64]]>([:])
        let failures = Locked<[String]>([])
        let senders = ["alice": (user("alice"), did("alice")), "bob": (user("bob"), did("bob"))]
        runOnThreads(threads) { thread in
            for index in 0..<perThread {
                // Half the threads write to the hot conversation, the rest spread over three.
                let target = thread % 2 == 0 ? convo : spread[index % 3]
                let sender = senders[thread % 4 < 2 ? "alice" : "bob"]!
                let outcome = batcher.append(BatchedMessage(NewMessage(convoID: target, msgID: "m-\(thread)-\(index)", epoch: 0,
                                                                       senderDID: sender.0, content: .ciphertext([1])),
                                                            replay: ReplayRecord(iss: sender.1, jti: "j-\(thread)-\(index)",
                                                                                 until: Date().addingTimeInterval(60))))
                switch outcome.result {
                case .success(let appended):
                    XCTAssertFalse(appended.duplicate)
                    XCTAssertTrue(outcome.replayRecorded)
                    seqs.withLock { $0[target, default: []].append(appended.seq) }
                case .failure(let error): failures.withLock { $0.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(failures.value, [])
        for target in [convo] + spread {
            let got = seqs.value[target] ?? []
            XCTAssertEqual(got.sorted(), Array(1...Int64(got.count)), "seqs of \(target) are not dense and unique")
            let page = try store.messages(convoID: target, MessageQuery(limit: 1000))
            XCTAssertEqual(page.messages.map(\.seq), Array(1...Int64(got.count)))
            XCTAssertEqual(page.lastSeq, Int64(got.count))
            // Each thread's messages in the order it sent them.
            for thread in 0..<threads {
                let mine = page.messages.filter { $0.msgID.hasPrefix("m-\(thread)-") }.map(\.msgID)
                XCTAssertEqual(mine, mine.sorted { Int($0.split(separator: "-")[2])! < Int($1.split(separator: "-")[2])! })
            }
            let events = try store.events(convoID: target, limit: 1000)
            XCTAssertEqual(events.map(\.seq), Array(1...Int64(events.count)))
        }
        XCTAssertEqual(seqs.value.values.map(\.count).reduce(0, +), threads * perThread)
    }

    func test_commitRacingBatches_neverLeavesAMessageOfTheClosedEpochAfterTheCommit() throws {
        let members = [leaf(0, "alice"), leaf(1, "bob")]
        for round in 0..<4 {
            let convo = try makeConvo(members)
            let batcher = MessageBatcher(store: store, lanes: 1, maxBatch: 8)
            let acknowledged = Locked<[String]>([])
            let refused = Locked<[DeliveryStoreError]>([])
            let store = self.store
            let application = commit(convo, from: 0, members: members)
            let bob = user("bob")
            runOnThreads(9) { thread in
                if thread == 4 {
                    do { _ = try store.applyCommit(application) } catch { XCTFail("the commit failed: \(error)") }
                    return
                }
                for index in 0..<25 {
                    let id = "r\(round)-\(thread)-\(index)"
                    let message = NewMessage(convoID: convo, msgID: id, epoch: 0, senderDID: bob, content: .ciphertext([2]))
                    switch batcher.append(BatchedMessage(message)).result {
                    case .success: acknowledged.withLock { $0.append(id) }
                    case .failure(let error): refused.withLock { $0.append(error) }
                    }
                }
            }
            let commitSeq = try XCTUnwrap(try store.commits(convoID: convo, fromEpoch: 0).first?.seq)
            let stored = try store.messages(convoID: convo, MessageQuery(limit: 1000, kind: .app)).messages
            // Every epoch-0 message sits before the commit; everything after it was refused.
            XCTAssertEqual(stored.filter { $0.seq > commitSeq }.map(\.msgID), [], "round \(round)")
            XCTAssertEqual(Set(stored.map(\.msgID)), Set(acknowledged.value), "round \(round)")
            XCTAssertEqual(refused.value.filter { $0 != .epochMismatch(current: 1) }, [], "round \(round)")
            XCTAssertEqual(acknowledged.value.count + refused.value.count, 8 * 25)
            let all = try store.messages(convoID: convo, MessageQuery(limit: 1000)).messages
            XCTAssertEqual(all.map(\.seq), Array(1...Int64(all.count)))
        }
    }

    /// The window that matters, made certain: a batch reaches the conversation while a commit
    /// holds its row lock (epoch 0 → 1, bob removed). The batch waits, and once the commit is in,
    /// judges every message by the state the commit left: epoch-0 messages and bob are refused,
    /// alice's epoch-1 message is stored after the commit.
    func test_batchBlockedByACommitInProgress_judgesByTheStateTheCommitLeft() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        let application = commit(convo, from: 0, members: [leaf(0, "alice")], departures: [1: .removed])
        let store = self.store
        let outcomes = Locked<[BatchedAppend]>([])
        let batchDone = DispatchSemaphore(value: 0)
        let messages = [
            BatchedMessage(message(convo, "old-epoch", epoch: 0), replay: replay("b1")),
            BatchedMessage(message(convo, "removed", epoch: 1, sender: "bob"), replay: replay("b2", iss: did("bob"))),
            BatchedMessage(message(convo, "new-epoch", epoch: 1), replay: replay("b3")),
        ]
        var sawBatchWaiting = false
        _ = try store.transaction { tx in
            _ = try tx.applyCommit(application)
            Thread.detachNewThread {
                outcomes.withLock { $0 = store.appendMessages(messages) }
                batchDone.signal()
            }
            // Until the batch's lock statement waits on this transaction's row lock.
            sawBatchWaiting = try fixture.sawALockWait(inStatementWith: "FOR NO KEY UPDATE")
        }
        batchDone.wait()
        XCTAssertTrue(sawBatchWaiting, "the batch never waited on the commit's lock")
        let results = outcomes.value.map(\.result)
        XCTAssertEqual(results.count, 3)
        // Judged by the batch itself (its refusals keep their tokens), not by the one-by-one fallback.
        XCTAssertEqual(outcomes.value.map(\.replayRecorded), [true, true, true])
        XCTAssertEqual(results[0], .failure(.epochMismatch(current: 1)))
        XCTAssertEqual(results[1], .failure(.notMember))
        let commitSeq = try XCTUnwrap(try store.commits(convoID: convo, fromEpoch: 0).first?.seq)
        XCTAssertEqual(try results[2].get().seq, commitSeq + 1)
        let stored = try store.messages(convoID: convo, MessageQuery(kind: .app)).messages
        XCTAssertEqual(stored.map(\.msgID), ["new-epoch"])
    }
}
