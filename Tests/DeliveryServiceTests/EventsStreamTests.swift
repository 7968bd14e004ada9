import Foundation
import MLS
import Store
import XCTest

/// subscribeConvoEvents end to end: delivery across nodes, resume, removal, OutdatedCursor, joins.
final class EventsStreamTests: EventsTestCase {
    /// Event seqs of one conversation's events, in arrival order.
    private func eventSeqs(_ events: [[String: Any]], _ convo: String) -> [Int] {
        events.filter { $0["convoId"] as? String == convo }.compactMap { $0["eventSeq"] as? Int }
    }

    func testMemberOnAnotherNodeReceivesEveryMessageInOrderExactlyOnce() throws {
        let (flow, alice, bob, convo) = try pair()
        let nodeB = try service.startNode()
        defer { nodeB.shutdown() }
        let stream = try subscribe(bob, port: nodeB.port)
        let seqs = try send(flow, alice, convo, count: 20, label: "hello")
        var events: [[String: Any]] = []
        while events.filter(Self.isApplicationMessage).count < 20 { events.append(try stream.readEvent()) }
        let messages = events.filter(Self.isApplicationMessage)
        XCTAssertEqual(messages.compactMap { $0["seq"] as? Int }, seqs)
        XCTAssertEqual(Set(messages.compactMap { $0["sender"] as? String }), [alice.did])
        let eventSeqs = eventSeqs(events, convo)
        XCTAssertEqual(eventSeqs, Array((eventSeqs.first ?? 0)..<(eventSeqs.first ?? 0) + eventSeqs.count))

        // The message travels inline (small ciphertext) and decrypts.
        let view = try XCTUnwrap(messages[0]["message"] as? [String: Any])
        let bytes = try XCTUnwrap(Base64Test.decode(view["ciphertext"]))
        var group = try XCTUnwrap(bob.groups[convo])
        let (plaintext, _) = try group.decrypt(try MLSMessage(decoding: bytes))
        XCTAssertEqual(String(decoding: plaintext, as: UTF8.self), "hello 0")

        // Nothing repeats: the next event is the next one sent.
        let last = try send(flow, alice, convo, count: 1, label: "sentinel")
        let next = try stream.readEvent()
        XCTAssertEqual(next["seq"] as? Int, last[0])
        XCTAssertEqual(next["eventSeq"] as? Int, (eventSeqs.last ?? 0) + 1)
    }

    func testResumeWithCursorReplaysEverythingMissedOnceThenContinuesLive() throws {
        let (flow, alice, bob, convo) = try pair()
        var stream: EventStreamClient? = try subscribe(bob, convoID: convo)
        let before = try send(flow, alice, convo, count: 1, label: "before")
        let seen = try XCTUnwrap(stream).readEvents(1, where: Self.isApplicationMessage)
        XCTAssertEqual(seen[0]["seq"] as? Int, before[0])
        let cursor = try XCTUnwrap(stream?.lastCursor)
        let lastEventSeq = try XCTUnwrap(seen[0]["eventSeq"] as? Int)
        stream?.sendClose()
        stream = nil

        let missed = try send(flow, alice, convo, count: 50, label: "offline")
        let resumed = try subscribe(bob, convoID: convo, cursor: cursor)
        var events: [[String: Any]] = []
        while events.filter(Self.isApplicationMessage).count < 50 { events.append(try resumed.readEvent()) }
        XCTAssertEqual(events.filter(Self.isApplicationMessage).compactMap { $0["seq"] as? Int }, missed)
        XCTAssertEqual(eventSeqs(events, convo), Array(lastEventSeq + 1...lastEventSeq + 50))

        let live = try send(flow, alice, convo, count: 1, label: "live")
        let next = try resumed.readEvent()
        XCTAssertEqual(next["seq"] as? Int, live[0])
        XCTAssertEqual(next["eventSeq"] as? Int, lastEventSeq + 51)
    }

    func testRemovedMembersStreamEndsWithTheRemoval() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), bob = flow.user(), carol = flow.user()
        try flow.publishKeyPackage(bob)
        try flow.publishKeyPackage(carol)
        try flow.publishKeyPackage(carol)
        let convo = try flow.createConvo(alice, with: [bob, carol])
        try flow.join(bob, convo)
        try flow.join(carol, convo)
        let other = try flow.createConvo(alice, with: [carol])
        try flow.join(carol, other)

        let single = try subscribe(carol, convoID: convo)
        let all = try subscribe(carol)
        let carolLeaf = try XCTUnwrap(carol.groups[convo]?.ownLeaf)
        let removal = try XCTUnwrap(alice.groups[convo]).remove(leaves: [carolLeaf])
        let removed = try service.call("blue.catbird.mls.removeMember", as: alice.identity, json: [
            "convoId": convo, "targetDid": carol.did, "commit": MLSTestUser.bytes(removal.commit),
            "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(removal.groupInfo))),
        ])
        XCTAssertEqual(removed.status, 200, "\(removed.json)")
        alice.groups[convo] = removal.group
        let afterRemoval = try send(flow, alice, convo, count: 1, label: "carol is gone")
        let elsewhere = try send(flow, alice, other, count: 1, label: "still here")

        // One-conversation stream: the commit, Carol's removal, then a normal close.
        let commit = try single.readEvent()
        XCTAssertEqual(commit["messageType"] as? String, "commit")
        let change = try single.readEvent()
        XCTAssertEqual(change["$type"] as? String, "blue.catbird.mls.subscribeConvoEvents#membershipChangeEvent")
        XCTAssertEqual(change["did"] as? String, carol.did)
        XCTAssertEqual(change["action"] as? String, "removed")
        guard case .close(let code) = try single.readFrame() else { return XCTFail("expected the stream to close") }
        XCTAssertEqual(code, 1000)

        // All-conversations stream: after the removal, only the other conversation's events.
        var events: [[String: Any]] = []
        while !(events.last.map { $0["action"] as? String == "removed" } ?? false) { events.append(try all.readEvent()) }
        let next = try all.readEvent()
        XCTAssertEqual(next["convoId"] as? String, other)
        XCTAssertEqual(next["seq"] as? Int, elsewhere[0])
        XCTAssertNotEqual(next["seq"] as? Int, afterRemoval[0])
    }

    func testConversationJoinedWhileSubscribedIsFollowedFromTheJoin() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), dave = flow.user()
        try flow.publishKeyPackage(dave)
        let stream = try subscribe(dave)
        let convo = try flow.createConvo(alice, with: [dave])
        try flow.join(dave, convo)
        let sent = try send(flow, alice, convo, count: 2, label: "welcome")
        var events: [[String: Any]] = []
        while events.filter(Self.isApplicationMessage).count < 2 { events.append(try stream.readEvent()) }
        let joined = try XCTUnwrap(events.first)
        XCTAssertEqual(joined["action"] as? String, "joined")
        XCTAssertEqual(joined["did"] as? String, dave.did)
        XCTAssertEqual(events.filter(Self.isApplicationMessage).compactMap { $0["seq"] as? Int }, sent)
        let seqs = eventSeqs(events, convo)
        XCTAssertEqual(seqs, Array(seqs[0]..<seqs[0] + seqs.count))
    }

    func testCursorOlderThanRetentionGetsOutdatedCursorThenTheOldestLeft() throws {
        let (flow, alice, bob, convo) = try pair()
        var stream: EventStreamClient? = try subscribe(bob, convoID: convo)
        _ = try send(flow, alice, convo, count: 1, label: "seen")
        let seen = try XCTUnwrap(stream).readEvents(1, where: Self.isApplicationMessage)
        let position = try XCTUnwrap(seen[0]["eventSeq"] as? Int)
        let cursor = try XCTUnwrap(stream?.lastCursor)
        stream = nil
        let sent = try send(flow, alice, convo, count: 5, label: "later")
        // What the retention job would do to events past MESSAGE_TTL_DAYS.
        let database = try Database(url: try service.databaseURL, poolSize: 1)
        defer { database.close() }
        for table in ["events", "messages"] {
            try database.execute("DELETE FROM \(table) WHERE convo_id = $1 AND event_seq <= $2", [convo, Int64(position + 2)])
        }

        let resumed = try subscribe(bob, convoID: convo, cursor: cursor)
        let info = try resumed.readEvent()
        XCTAssertEqual(info["$type"] as? String, "blue.catbird.mls.subscribeConvoEvents#infoEvent")
        XCTAssertEqual(info["info"] as? String, "OutdatedCursor")
        XCTAssertEqual(info["convoId"] as? String, convo)
        let rest = try resumed.readEvents(3, where: Self.isApplicationMessage)
        XCTAssertEqual(rest.compactMap { $0["seq"] as? Int }, Array(sent.suffix(3)))
        XCTAssertEqual(rest.first?["eventSeq"] as? Int, position + 3)
    }
}
