import ChatProtocol
import Dispatch
import Foundation
import HTTP
import MLSClient
import Synchronization
import TestSupport
import XCTest

/// publishTyping (docs/chat.md, "Typing"): the event reaches the other leaves' streams live, on
/// every node, as its own frame; never the sender's own device, never an entry; a flood is folded
/// and limited.
final class ChatTypingTests: ChatContractTestCase {
    /// An interval long enough that a flood from a loaded test machine lands within one.
    override class var environment: [String: String] { ["CHAT_TYPING_INTERVAL": "4"] }

    /// alice's group with bob and carol, every device a leaf.
    func group() throws -> (alice: ChatClient, bob: ChatClient, carol: ChatClient, carolID: TestIdentity, conversation: ChatUUID) {
        let (alice, _) = try enrolled()
        let (bob, bobID) = try enrolled()
        let (carol, carolID) = try enrolled()
        let (conversation, _) = try alice.create(inviting: [bobID.did.rawValue, carolID.did.rawValue])
        for member in [bob, carol] {
            try member.accept(conversation)
            try alice.fulfil(try recovery(for: member, in: conversation, seenBy: alice))
            try join(member)
        }
        return (alice, bob, carol, carolID, conversation)
    }

    /// The next typing event on `stream`, skipping envelopes.
    func nextTyping(_ stream: ChatEventStream, timeout: Double = 10) throws -> ChatValue {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let event = try stream.next(timeout: max(0.1, deadline.timeIntervalSinceNow))
            if event.kind == .typing { return event.payload }
        }
    }

    /// The entries of `conversation` as `reader` may read them.
    func entryCount(_ reader: ChatClient, _ conversation: ChatUUID) throws -> Int {
        try reader.query("getEntries", [("conversationId", conversation.description), ("afterSeq", "0"), ("limit", "100")])["entries"]?
            .array?.count ?? -1
    }

    func testTypingReachesTheOtherLeavesLive_OnEveryNode_NeverTheSenderNorTheLog() throws {
        let (alice, bob, carol, carolID, conversation) = try group()
        let entries = try entryCount(alice, conversation)
        let aliceStream = try alice.subscribe(try alice.inventory())
        let bobStream = try bob.subscribe(try bob.inventory())
        // carol follows from a second node of the same database.
        let node = try service.startNode()
        defer { node.shutdown() }
        let audience = ServiceHarness.serviceDID + "#atproto_mls"
        let carolThere = ChatClient(device: carol.device, api: ChatAPI(
            client: MLSAPIClient(configuration: .init(baseURL: "http://127.0.0.1:\(node.port)", serviceDID: audience), tokenProvider: nil)
        ) { nsid in carolID.token(audience: audience, nsid: nsid) })
        carolThere.resume(authGeneration: 1)
        let carolStream = try carolThere.subscribe(try carolThere.inventory())
        let cursors = (bob: bobStream.cursor, carol: carolStream.cursor)

        let answer = try alice.publishTyping(conversation)
        XCTAssertEqual(answer["actorDid"]?.text, alice.device.did.rawValue)
        XCTAssertEqual(answer["isTyping"], .bool(true))
        let expiresAt = try XCTUnwrap(answer["expiresAt"]?.text.flatMap(CanonicalTimestamp.init))
        XCTAssertEqual(Double(expiresAt.millisecondsSince1970) / 1000, Date().timeIntervalSince1970 + 8, accuracy: 3, "an 8 s life")

        for (name, stream) in [("bob", bobStream), ("carol on the other node", carolStream)] {
            let typing = try nextTyping(stream)
            XCTAssertEqual(typing.type, ChatSchema.typePrefix + "typingEvent", name)
            XCTAssertEqual(typing["typingId"], answer["typingId"], name)
            XCTAssertEqual(typing["actorDeviceId"]?.uuid, alice.device.deviceID, name)
            XCTAssertEqual(typing["conversationId"]?.uuid, conversation, name)
        }
        XCTAssertEqual(bobStream.cursor, cursors.bob, "no cursor: the chain did not move")
        XCTAssertEqual(carolStream.cursor, cursors.carol)

        // alice's own device gets nothing: the next thing on its stream is bob's message.
        try bob.send(conversation, text: "typing?")
        let next = try aliceStream.next()
        XCTAssertEqual(next.kind, .envelope, "the sender's device got its own typing event")
        XCTAssertEqual(next.payload.type, ChatSchema.typePrefix + "messageAvailableEvent")
        XCTAssertEqual(try entryCount(alice, conversation), entries + 1, "only bob's message became an entry")

        // A stop, folded into one event after the interval, still arrives.
        try alice.publishTyping(conversation, isTyping: false)
        XCTAssertEqual(try nextTyping(bobStream)["isTyping"], .bool(false))
    }

    func testAFloodIsFoldedAndLimited() throws {
        let (alice, bob, _, _, conversation) = try group()
        let bobStream = try bob.subscribe(try bob.inventory())
        let coordinates = try alice.coordinates(conversation)
        let nsid = ChatAPI.nsid("publishTyping")
        let bodies = (0..<20).map { index in
            ChatJSON.render(SignedRequest.sign(alice.body(.typing, [
                "typingId": .uuid(.random()), "coordinates": coordinates.value, "isTyping": .bool(index % 2 == 0),
            ]), kind: .typing, key: alice.device.key).input(for: nsid))
        }
        let tokens = try bodies.map { _ in try alice.api.token(nsid) }
        let url = try service.baseURL + "/xrpc/" + nsid
        let http = HTTPClient(timeout: 30, maxBodySize: 1 << 20, allowPrivateAddresses: true)
        let replies = Mutex<[(status: Int, error: String?, retryAfter: String?)]>([])
        DispatchQueue.concurrentPerform(iterations: bodies.count) { index in
            guard let response = try? http.send(method: "POST", url, headers: [("Authorization", "Bearer " + tokens[index]),
                                                                                ("Content-Type", "application/json")], body: bodies[index]) else { return }
            let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
            replies.withLock { $0.append((response.status, json?["error"] as? String, response.header("Retry-After"))) }
        }
        let answered = replies.withLock { $0 }
        XCTAssertEqual(answered.count, bodies.count)
        XCTAssertEqual(answered.filter { $0.status == 200 }.count, 5, "CHAT_TYPING_BURST calls in the interval: \(answered)")
        let limited = answered.filter { $0.status == 429 }
        XCTAssertEqual(limited.count, 15)
        XCTAssertTrue(limited.allSatisfy { $0.error == "RateLimited" && $0.retryAfter != nil }, "\(limited)")

        // Five accepted calls, at most one event per interval: the first at once, the rest folded into one.
        var events = 0
        let end = Date().addingTimeInterval(6)
        while end.timeIntervalSinceNow > 0 {
            do {
                if try bobStream.next(timeout: max(0.1, end.timeIntervalSinceNow)).kind == .typing { events += 1 }
            } catch HTTPClientError.timeout { break }
        }
        XCTAssertEqual(events, 2, "a burst yields the first event and one folded event")
    }

    func testStaleCoordinatesAndNonLeavesAreRefused() throws {
        let (alice, bob, _, _, conversation) = try group()
        let coordinates = try alice.coordinates(conversation)
        try alice.rotate(conversation)
        XCTAssertEqual(refusal(400) { try bob.publishTyping(conversation, at: coordinates) }, "StaleCoordinates")
        let (outsider, _) = try enrolled()
        XCTAssertEqual(refusal(400) { try outsider.publishTyping(conversation, at: try alice.coordinates(conversation)) }, "DeviceNotLeaf")
    }
}
