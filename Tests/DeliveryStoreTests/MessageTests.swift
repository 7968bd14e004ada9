import DeliveryStore
import Foundation
import Store
import TestSupport
import XCTest

final class MessageTests: StoreTestCase {
    func test_concurrentAppends_getDenseUniqueSeqs() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        let threads = 8, perThread = 50
        let seqs = Locked<[Int64]>([])
        let failures = Locked<[String]>([])
        let store = self.store, senders = [user("alice"), user("bob")]
        runOnThreads(threads) { thread in
            for index in 0..<perThread {
                let message = NewMessage(convoID: convo, msgID: "m-\(thread)-\(index)", epoch: 0,
                                         senderDID: senders[thread % 2],
                                         content: .ciphertext([UInt8(thread), UInt8(index)]))
                do {
                    let appended = try store.appendMessage(message)
                    seqs.withLock { $0.append(appended.seq) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(failures.value, [])
        XCTAssertEqual(seqs.value.sorted(), Array(1...Int64(threads * perThread)))
        let page = try store.messages(convoID: convo, MessageQuery(limit: 1000))
        XCTAssertEqual(page.lastSeq, Int64(threads * perThread))
        XCTAssertEqual(page.messages.map(\.seq), Array(1...Int64(threads * perThread)))
        // Each thread's messages are in its own order, and created_at follows seq.
        for thread in 0..<threads {
            let mine = page.messages.filter { $0.msgID.hasPrefix("m-\(thread)-") }
            XCTAssertEqual(mine.map(\.msgID), (0..<perThread).map { "m-\(thread)-\($0)" })
        }
        XCTAssertEqual(page.messages.map(\.createdAt), page.messages.map(\.createdAt).sorted())
        XCTAssertEqual(try store.loadConvo(convo).lastSeq, Int64(threads * perThread))
    }

    func test_duplicateMsgID_returnsTheFirstResult() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        let first = try store.appendMessage(message(convo, "dup", bytes: [1]))
        _ = try store.appendMessage(message(convo, "other"))
        let again = try store.appendMessage(message(convo, "dup", bytes: [9, 9]))
        XCTAssertFalse(first.duplicate)
        XCTAssertTrue(again.duplicate)
        XCTAssertEqual(again.seq, first.seq)
        XCTAssertEqual(again.receivedAt, first.receivedAt)
        XCTAssertEqual(again.epoch, first.epoch)
        let stored = try store.messages(convoID: convo).messages
        XCTAssertEqual(stored.map(\.msgID), ["dup", "other"])
        XCTAssertEqual(stored[0].ciphertext, [1])
        XCTAssertEqual(deliveryError { try store.appendMessage(message(convo, "dup", sender: "bob")) }, .messageIDConflict)
    }

    func test_concurrentDuplicates_storeOneMessage() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        let results = Locked<[AppendedMessage]>([])
        let store = self.store, message = self.message(convo, "same")
        runOnThreads(6) { _ in
            if let appended = try? store.appendMessage(message) { results.withLock { $0.append(appended) } }
        }
        XCTAssertEqual(results.value.count, 6)
        XCTAssertEqual(Set(results.value.map(\.seq)), [1])
        XCTAssertEqual(results.value.filter { !$0.duplicate }.count, 1)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages"), 1)
    }

    func test_staleEpoch_isEpochMismatch_andStoresNothing() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")], epoch: 3)
        XCTAssertEqual(deliveryError { try store.appendMessage(message(convo, epoch: 2)) }, .epochMismatch(current: 3))
        XCTAssertEqual(deliveryError { try store.appendMessage(message(convo, epoch: 4)) }, .epochMismatch(current: 3))
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages"), 0)
        let convoRow = try store.loadConvo(convo)
        XCTAssertEqual(convoRow.lastSeq, 0)
        XCTAssertNil(convoRow.lastMessageAt)
        XCTAssertEqual(try store.events(convoID: convo).filter { $0.kind == .messageEvent }, [])
        XCTAssertEqual(try store.appendMessage(message(convo, epoch: 3)).seq, 1)
    }

    func test_nonMember_andUnknownConvo_areRejected() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        XCTAssertEqual(deliveryError { try store.appendMessage(message(convo, sender: "mallory")) }, .notMember)
        XCTAssertEqual(deliveryError { try store.appendMessage(message("00", sender: "alice")) }, .convoNotFound)
        // A removed member can no longer send.
        _ = try store.applyCommit(commit(convo, from: 0, members: [leaf(0, "alice")]))
        XCTAssertEqual(deliveryError { try store.appendMessage(message(convo, epoch: 1, sender: "bob")) }, .notMember)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages WHERE message_type = 'app'"), 0)
    }

    func test_messagesQuery_filtersBySeqEpochAndKind() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        _ = try store.appendMessage(message(convo, "a0"))
        _ = try store.applyCommit(commit(convo, from: 0, members: [leaf(0, "alice"), leaf(1, "bob")]))
        _ = try store.appendMessage(message(convo, "a1", epoch: 1, sender: "bob"))
        _ = try store.appendMessage(message(convo, "a2", epoch: 1))

        let all = try store.messages(convoID: convo)
        XCTAssertEqual(all.messages.map(\.msgID), ["a0", "commit-0", "a1", "a2"])
        XCTAssertEqual(all.messages.map(\.kind), [.app, .commit, .app, .app])
        XCTAssertEqual(all.lastSeq, 4)
        XCTAssertEqual(try store.messages(convoID: convo, MessageQuery(sinceSeq: 2)).messages.map(\.seq), [3, 4])
        XCTAssertEqual(try store.messages(convoID: convo, MessageQuery(limit: 2)).messages.map(\.seq), [1, 2])
        XCTAssertEqual(try store.messages(convoID: convo, MessageQuery(fromEpoch: 1)).messages.map(\.msgID), ["a1", "a2"])
        XCTAssertEqual(try store.messages(convoID: convo, MessageQuery(toEpoch: 0)).messages.map(\.msgID), ["a0", "commit-0"])
        XCTAssertEqual(try store.messages(convoID: convo, MessageQuery(kind: .commit)).messages.map(\.msgID), ["commit-0"])
        XCTAssertEqual(try store.messages(convoID: convo, MessageQuery(sinceSeq: 4)).messages, [])
        XCTAssertEqual(deliveryError { try store.messages(convoID: "abcd") }, .convoNotFound)
        XCTAssertEqual(deliveryError { try store.messages(convoID: convo, MessageQuery(limit: 0)) },
                       .invalidArgument("limit 1…1000"))
        let bob = all.messages[2]
        XCTAssertEqual(bob.senderDID, did("bob"))
        XCTAssertEqual(bob.convoID, convo)
        XCTAssertEqual(bob.size, 3)
    }

    func test_thinMode_storesHashAndSizeOnly() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        let hash = [UInt8](repeating: 7, count: 32)
        var thin = message(convo, "thin")
        thin.content = .external(sha256: hash, size: 4096)
        thin.paddedSize = 4096
        XCTAssertEqual(try store.appendMessage(thin).seq, 1)
        let row = try XCTUnwrap(store.messages(convoID: convo).messages.first)
        XCTAssertNil(row.ciphertext)
        XCTAssertEqual(row.contentHash, hash)
        XCTAssertEqual(row.size, 4096)
        XCTAssertEqual(row.paddedSize, 4096)
        var badHash = message(convo, "bad")
        badHash.content = .external(sha256: [1, 2], size: 10)
        XCTAssertEqual(deliveryError { try store.appendMessage(badHash) }, .invalidArgument("a SHA-256 hash is 32 bytes"))
        var negative = message(convo, "negative")
        negative.content = .external(sha256: hash, size: -1)
        XCTAssertEqual(deliveryError { try store.appendMessage(negative) }, .invalidArgument("size out of range"))
        XCTAssertEqual(try store.loadConvo(convo).lastSeq, 1)
    }

    func test_appendUpdatesLastMessageAt_andAppendsAnEvent() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        let appended = try store.appendMessage(message(convo, "m1"))
        XCTAssertEqual(try store.loadConvo(convo).lastMessageAt, appended.receivedAt)
        let event = try XCTUnwrap(store.events(convoID: convo).last)
        XCTAssertEqual(event.kind, .messageEvent)
        let payload = try JSONSerialization.jsonObject(with: Data(event.payload.utf8)) as? [String: Any]
        XCTAssertEqual(payload?["seq"] as? Int, 1)
        XCTAssertEqual(payload?["msgId"] as? String, "m1")
        XCTAssertEqual(payload?["messageType"] as? String, "app")
        XCTAssertEqual(payload?["sender"] as? String, did("alice"))
    }
}

final class PreviousEpochGraceTests: StoreTestCase {
    override var configuration: DeliveryStore.Configuration { .init(acceptsPreviousEpochMessages: true) }

    func test_previousEpoch_isAcceptedWhenConfigured_olderIsNot() throws {
        let convo = try makeConvo([leaf(0, "alice")], epoch: 5)
        XCTAssertEqual(try store.appendMessage(message(convo, epoch: 4)).epoch, 4)
        XCTAssertEqual(deliveryError { try store.appendMessage(message(convo, epoch: 3)) }, .epochMismatch(current: 5))
    }
}
