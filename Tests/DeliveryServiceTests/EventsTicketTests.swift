import ATProto
import Basics
@testable import DeliveryService
import Foundation
import Primitives
import XCTest

/// Tickets and upgrade refusals: expired, reused, forged, another account's; client misbehaviour;
/// the per-user socket limit.
final class EventsTicketTests: EventsTestCase {
    private var signer: SubscriptionTicketSigner {
        SubscriptionTicketSigner(key: Hex.decode(Self.ticketKeyHex)!, lifetime: 30)
    }

    private func refused(_ ticket: String?, cursor: String? = nil, headers: [(String, String)] = []) throws -> EventStreamClient.Handshake {
        try EventStreamClient(port: try service.app.port, ticket: ticket, cursor: cursor, headers: headers).handshake
    }

    func testTicketShapeAndEndpoint() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user()
        let reply = try service.call("blue.catbird.mls.getSubscriptionTicket", as: alice.identity, json: [:])
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.json["endpoint"] as? String, "wss://mls.test/xrpc/blue.catbird.mls.subscribeConvoEvents")
        let expiresAt = try XCTUnwrap(Timestamp.parse(try XCTUnwrap(reply.json["expiresAt"] as? String)))
        let ticket = try signer.verify(try XCTUnwrap(reply.json["ticket"] as? String), now: Date())
        XCTAssertEqual(ticket.did, alice.did)
        XCTAssertNil(ticket.convoID)
        XCTAssertEqual(ticket.expiresAt.timeIntervalSince1970, expiresAt.timeIntervalSince1970, accuracy: 0.001)
        XCTAssertEqual(try service.call("blue.catbird.mls.getSubscriptionTicket", json: [:]).status, 401)
    }

    func testTicketForAConversationNeedsMembership() throws {
        let (flow, _, _, convo) = try pair()
        let stranger = flow.user()
        let reply = try service.call("blue.catbird.mls.getSubscriptionTicket", as: stranger.identity, json: ["convoId": convo])
        XCTAssertEqual(reply.status, 403)
        XCTAssertEqual(reply.error, "NotMember")
        let malformed = try service.call("blue.catbird.mls.getSubscriptionTicket", as: stranger.identity, json: ["convoId": "not hex"])
        XCTAssertEqual(malformed.status, 400)
    }

    func testExpiredTicketIsRefused() throws {
        let bob = ChatFlow(service: try service).user()
        let expired = signer.encode(SubscriptionTicket(id: Hex.encode(SecureRandom.bytes(16)), did: bob.did, convoID: nil,
                                                       expiresAtMillis: Int64(Date().timeIntervalSince1970 * 1000) - 1000))
        let handshake = try refused(expired)
        XCTAssertEqual(handshake.status, 401)
        XCTAssertEqual(handshake.error, "ExpiredTicket")
    }

    func testTicketIsSingleUse() throws {
        let bob = ChatFlow(service: try service).user()
        let ticket = try ticket(bob)
        let first = try EventStreamClient(port: try service.app.port, ticket: ticket)
        XCTAssertEqual(first.handshake.status, 101)
        first.sendClose()
        let second = try refused(ticket)
        XCTAssertEqual(second.status, 401)
        XCTAssertEqual(second.error, "TicketAlreadyUsed")
        // Across nodes too: the used ids live in the database.
        let nodeB = try service.startNode()
        defer { nodeB.shutdown() }
        let elsewhere = try EventStreamClient(port: nodeB.port, ticket: ticket).handshake
        XCTAssertEqual(elsewhere.error, "TicketAlreadyUsed")
    }

    func testForgedOrTamperedTicketsAreRefused() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), mallory = flow.user()
        let genuine = try ticket(alice)
        let parts = genuine.split(separator: ".").map(String.init)
        // Payload rewritten to Mallory's DID, MAC kept.
        let payload = String(decoding: Base64URL.decode(parts[0])!, as: UTF8.self).replacingOccurrences(of: alice.did, with: mallory.did)
        let rewritten = Base64URL.encode(Array(payload.utf8)) + "." + parts[1]
        // Signed with a key that is not the service's.
        let otherKey = SubscriptionTicketSigner(key: SecureRandom.bytes(32), lifetime: 30)
            .issue(did: mallory.did, convoID: nil, now: Date()).text
        var flipped = Array(genuine.utf8)
        flipped[flipped.count - 2] = flipped[flipped.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        for forged in [rewritten, otherKey, String(decoding: flipped, as: UTF8.self), "garbage", parts[0], genuine + ".x",
                       String(repeating: "A", count: 5000)] {
            let handshake = try refused(forged)
            XCTAssertEqual(handshake.status, 401, forged)
            XCTAssertEqual(handshake.error, "InvalidTicket", forged)
        }
        // The genuine one still works: none of the forgeries consumed it.
        XCTAssertEqual(try refused(genuine).status, 101)
    }

    func testAnotherAccountsTicketIsRefused() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), bob = flow.user()
        let nsid = "blue.catbird.mls.subscribeConvoEvents"
        let alicesTicket = try ticket(alice)
        let asBob = try refused(alicesTicket, headers: [("Authorization", "Bearer " + bob.identity.token(audience: ServiceHarness.serviceDID, nsid: nsid))])
        XCTAssertEqual(asBob.status, 403)
        XCTAssertEqual(asBob.error, "TicketMismatch")
        let asAlice = try refused(alicesTicket, headers: [("Authorization", "Bearer " + alice.identity.token(audience: ServiceHarness.serviceDID, nsid: nsid))])
        XCTAssertEqual(asAlice.status, 101)
    }

    func testMalformedRequestsAreRefused() throws {
        let bob = ChatFlow(service: try service).user()
        XCTAssertEqual(try refused(nil).status, 400)
        let badCursor = try refused(try ticket(bob), cursor: "AQ!!")
        XCTAssertEqual(badCursor.status, 400)
        XCTAssertEqual(badCursor.error, "InvalidRequest")
        let plain = try service.call("blue.catbird.mls.subscribeConvoEvents", query: [("ticket", try ticket(bob))])
        XCTAssertEqual(plain.status, 400)
    }

    func testClientFramesCloseTheSocket() throws {
        let bob = ChatFlow(service: try service).user()
        let talker = try subscribe(bob)
        talker.sendText("{\"hello\": 1}")
        XCTAssertEqual(try talker.readCloseCode(), 1008)
        let unmasked = try subscribe(bob)
        unmasked.sendFrame(opcode: 0x1, payload: Array("x".utf8), masked: false)
        XCTAssertEqual(try unmasked.readCloseCode(), 1002)
        let reserved = try subscribe(bob)
        reserved.sendFrame(opcode: 0x3, payload: [])
        XCTAssertEqual(try reserved.readCloseCode(), 1002)
    }

    func testSocketsPerUserAreLimited() throws {
        let flow = ChatFlow(service: try service)
        let carol = flow.user(), dave = flow.user()
        var open = try (0..<Self.socketLimit).map { _ in try subscribe(carol) }
        let over = try refused(try ticket(carol))
        XCTAssertEqual(over.status, 429)
        XCTAssertEqual(over.error, "TooManySubscriptions")
        // Another account is not affected.
        XCTAssertEqual(try refused(try ticket(dave)).status, 101)
        // A closed socket frees its place (once the server has seen the close).
        open[0].sendClose()
        XCTAssertEqual(try open[0].readCloseCode(), 1000)
        open.removeFirst()
        var status = 0
        for _ in 0..<50 where status != 101 {
            status = try refused(try ticket(carol)).status
            if status != 101 { Thread.sleep(forTimeInterval: 0.05) }
        }
        XCTAssertEqual(status, 101)
    }
}
