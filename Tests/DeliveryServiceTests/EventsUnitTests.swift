import ATProto
@testable import DeliveryService
@testable import DeliveryStore
import Foundation
import Primitives
import XCTest

/// The parsers and encoders behind subscriptions: cursors, tickets, settings, frames.
final class EventsUnitTests: XCTestCase {
    // MARK: Cursor

    func testCursorRoundTripsPositions() throws {
        var cursor = EventCursor()
        cursor.set("aa01", 0)
        cursor.set("bb02", 127)
        cursor.set("cc03", 128)
        cursor.set("dd04", Int64.max)
        let decoded = try EventCursor(decoding: cursor.encoded())
        XCTAssertEqual(decoded, cursor)
        XCTAssertEqual(decoded.position(of: "bb02"), 127)
        XCTAssertEqual(decoded.position(of: "dd04"), Int64.max)
        XCTAssertNil(decoded.position(of: "ee05"))
        XCTAssertEqual(try EventCursor(decoding: EventCursor().encoded()).positions, [:])
        // Entries are sorted by key: the same positions always give the same text.
        var reordered = EventCursor()
        for convo in ["dd04", "cc03", "bb02", "aa01"] { reordered.set(convo, cursor.position(of: convo)!) }
        XCTAssertEqual(reordered.encoded(), cursor.encoded())
    }

    func testCursorRejectsTruncatedOversizedAndMalformedText() throws {
        var cursor = EventCursor()
        cursor.set("aa01", 300)
        let bytes = Base64URL.decode(cursor.encoded())!
        let key = Array(bytes[1..<9])
        var rejects: [String] = [
            "", "AQ!!", "AQ==x", Base64URL.encode([2]) /* version */, Base64URL.encode([]),
            Base64URL.encode(Array(bytes.dropLast())) /* varint cut */, Base64URL.encode(Array(bytes.prefix(5))) /* key cut */,
            Base64URL.encode([1] + key + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]) /* > Int64 */,
            Base64URL.encode([1] + key + [5] + key + [6]) /* duplicate key */,
            String(repeating: "A", count: EventCursor.maxTextLength + 4),
        ]
        var high = key
        high[0] = 0xFF
        rejects.append(Base64URL.encode([1] + high + [1] + key + [1])) // out of order
        for text in rejects {
            XCTAssertThrowsError(try EventCursor(decoding: text), text)
        }
        // Nine 7-bit groups carry every Int64.
        let maximum = try EventCursor(decoding: Base64URL.encode([1] + key + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]))
        XCTAssertEqual(maximum.positions.values.first, Int64.max)
    }

    // MARK: Tickets

    private let signer = SubscriptionTicketSigner(key: Array(repeating: 7, count: 32), lifetime: 30)
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    func testTicketVerifiesUntilItExpires() throws {
        let issued = signer.issue(did: "did:plc:alice", convoID: "abcd", now: now)
        let ticket = try signer.verify(issued.text, now: now.addingTimeInterval(29.9))
        XCTAssertEqual(ticket, issued.ticket)
        XCTAssertEqual(ticket.convoID, "abcd")
        XCTAssertEqual(ticket.expiresAt, now.addingTimeInterval(30))
        XCTAssertThrowsError(try signer.verify(issued.text, now: now.addingTimeInterval(30))) {
            XCTAssertEqual($0 as? SubscriptionTicketError, .expired)
        }
        XCTAssertNotEqual(signer.issue(did: "did:plc:alice", convoID: nil, now: now).ticket.id, issued.ticket.id)
    }

    func testTicketRejectsForgeriesAndMalformedText() throws {
        let issued = signer.issue(did: "did:plc:alice", convoID: nil, now: now).text
        let parts = issued.split(separator: ".").map(String.init)
        let payload = Base64URL.decode(parts[0])!
        func signed(_ text: String) -> String {
            let bytes = Array(text.utf8)
            return Base64URL.encode(bytes) + "." + Base64URL.encode(try! HMAC.authenticationCode(for: bytes, key: signer.key, hash: .sha256))
        }
        let id = String(repeating: "0", count: 32)
        let cases = [
            Base64URL.encode(payload + [0x20]) + "." + parts[1],                          // payload changed
            parts[0] + "." + Base64URL.encode(Array(Base64URL.decode(parts[1])!.dropLast())), // MAC truncated
            SubscriptionTicketSigner(key: Array(repeating: 8, count: 32), lifetime: 30).issue(did: "did:plc:alice", convoID: nil, now: now).text,
            parts[0], issued + ".", "." + parts[1], "", String(repeating: "A", count: 2000),
            signed("v2\n\(id)\ndid:plc:a\n\n1900000000000"),                                // version
            signed("v1\n\(id)\ndid:plc:a\n1900000000000"),                                  // field missing
            signed("v1\nshort\ndid:plc:a\n\n1900000000000"),                                // id length
            signed("v1\n\(id)\n\n\n1900000000000"),                                         // no DID
            signed("v1\n\(id)\ndid:plc:a\n\nsoon"),                                         // expiry
        ]
        for text in cases {
            XCTAssertThrowsError(try signer.verify(text, now: now), text) {
                XCTAssertEqual($0 as? SubscriptionTicketError, .invalid, text)
            }
        }
        XCTAssertEqual(try signer.verify(signed("v1\n\(id)\ndid:plc:a\n\n1900000000000"), now: now).did, "did:plc:a")
    }

    // MARK: Settings and frames

    func testSubscriptionEndpoint() {
        XCTAssertEqual(EventSettings.subscriptionEndpoint(serviceEndpoint: "https://mls.example/"),
                       "wss://mls.example/xrpc/blue.catbird.mls.subscribeConvoEvents")
        XCTAssertEqual(EventSettings.subscriptionEndpoint(serviceEndpoint: "http://127.0.0.1:8080"),
                       "ws://127.0.0.1:8080/xrpc/blue.catbird.mls.subscribeConvoEvents")
    }

    func testFramesAreJSONObjectsWithTypeAndCursor() throws {
        let event = ConvoEvent(convoID: "ab", seq: 7, kind: .membershipChangeEvent,
                               payload: #"{"action":"removed","did":"did:plc:carol","epoch":4}"#, createdAt: now)
        let prepared = try PreparedEvent(event, message: nil)
        XCTAssertTrue(prepared.ends(membershipOf: "did:plc:carol"))
        XCTAssertFalse(prepared.ends(membershipOf: "did:plc:alice"))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(prepared.frame(cursor: "AQ").utf8)) as? [String: Any])
        XCTAssertEqual(object["$type"] as? String, "blue.catbird.mls.subscribeConvoEvents#membershipChangeEvent")
        XCTAssertEqual(object["cursor"] as? String, "AQ")
        XCTAssertEqual(object["eventSeq"] as? Int, 7)
        XCTAssertEqual(object["epoch"] as? Int, 4)
        let broken = ConvoEvent(convoID: "ab", seq: 8, kind: .messageEvent, payload: #"{"seq":"x"}"#, createdAt: now)
        XCTAssertThrowsError(try PreparedEvent(broken, message: nil))
    }

    func testSharedTicketKeyIsCreatedOnceForAllNodes() throws {
        let harness = try ServiceHarness()
        defer { harness.shutdown() }
        let database = harness.app.database
        let name = "test_secret_" + String(UInt32.random(in: 0...UInt32.max))
        let first = try SubscriptionTicketStore(database: database).sharedSecret(name)
        let second = try SubscriptionTicketStore(database: database).sharedSecret(name)
        XCTAssertEqual(first.count, 32)
        XCTAssertEqual(first, second)
        XCTAssertNotEqual(try SubscriptionTicketStore(database: database).sharedSecret(name + "x"), first)
    }
}
