import DeliveryStore
import Foundation
import Store
import TestSupport
import XCTest

final class EventTests: StoreTestCase {
    private func payload(_ event: ConvoEvent) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(event.payload.utf8)) as? [String: Any])
    }

    func test_events_followTheChangesInOrder() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        _ = try store.appendMessage(message(convo, "hello"))
        _ = try store.applyCommit(commit(convo, from: 0, members: [leaf(0, "alice"), leaf(2, "carol")],
                                         departures: [1: .left]))
        XCTAssertEqual(deliveryError { try store.appendMessage(message(convo, "late", epoch: 0)) },
                       .epochMismatch(current: 1))
        _ = try store.appendMessage(message(convo, "bye", epoch: 1, sender: "carol"))

        let events = try store.events(convoID: convo)
        XCTAssertEqual(events.map(\.seq), Array(1...Int64(events.count)), "dense")
        XCTAssertEqual(events.map(\.kind), [
            .membershipChangeEvent, .membershipChangeEvent,  // alice, bob joined at creation
            .messageEvent,  // hello
            .messageEvent, .membershipChangeEvent, .membershipChangeEvent, .epochAdvanced,  // the commit
            .messageEvent,  // bye
        ])
        XCTAssertEqual(try payload(events[0])["did"] as? String, did("alice"))
        XCTAssertEqual(try payload(events[0])["action"] as? String, "joined")
        XCTAssertEqual(try payload(events[2])["msgId"] as? String, "hello")
        XCTAssertEqual(try payload(events[3])["messageType"] as? String, "commit")
        XCTAssertEqual(try payload(events[3])["seq"] as? Int, 2)
        XCTAssertEqual(try payload(events[4])["did"] as? String, did("bob"))
        XCTAssertEqual(try payload(events[4])["action"] as? String, "left")
        XCTAssertEqual(try payload(events[4])["epoch"] as? Int, 1)
        XCTAssertEqual(try payload(events[5])["action"] as? String, "joined")
        XCTAssertEqual(try payload(events[6])["epoch"] as? Int, 1)
        XCTAssertEqual(try payload(events[6])["commitSeq"] as? Int, 2)
        XCTAssertEqual(try payload(events[7])["seq"] as? Int, 3)
        XCTAssertEqual(try store.loadConvo(convo).lastEventSeq, Int64(events.count))
        XCTAssertEqual(try store.events(convoID: convo, afterSeq: 6).map(\.seq), [7, 8])
        XCTAssertEqual(try store.events(convoID: convo, afterSeq: 2, limit: 1).map(\.seq), [3])
    }

    func test_notify_announcesTheNewestEventAfterCommit() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        let listener = try PGListener(url: fixture.url)
        defer { listener.close() }
        try listener.listen("convo_events")
        // A transaction that rolls back announces nothing.
        XCTAssertThrowsError(try store.transaction { transaction in
            _ = try transaction.appendMessage(message(convo, "rolled-back"))
            throw DeliveryStoreError.invalidArgument("abandon")
        })
        _ = try store.appendMessage(message(convo, "kept"))
        var received: [PGNotification] = []
        for _ in 0..<50 where received.isEmpty {
            received += try listener.wait(timeout: 0.1)
        }
        XCTAssertEqual(received.map(\.payload), ["\(convo) 2"])
        XCTAssertEqual(try store.events(convoID: convo).count, 2)
    }

    func test_concurrentWriters_keepEventSeqDense() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        let store = self.store, sender = user("alice")
        runOnThreads(6) { thread in
            for index in 0..<20 {
                _ = try? store.appendMessage(NewMessage(convoID: convo, msgID: "\(thread)-\(index)", epoch: 0,
                                                        senderDID: sender, content: .ciphertext([0])))
            }
        }
        let events = try store.events(convoID: convo, limit: 1000)
        XCTAssertEqual(events.map(\.seq), Array(1...121))
        // Event order matches message seq order.
        let seqs = try events.dropFirst().map { try payload($0)["seq"] as? Int }
        XCTAssertEqual(seqs, (1...120).map { Optional($0) })
    }
}
