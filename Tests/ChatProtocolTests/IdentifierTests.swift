import ChatProtocol
import Primitives
import XCTest

final class IdentifierTests: XCTestCase {
    func testUUIDsAreLowercaseHyphenatedVersion4Only() {
        let good = "0f8fad5b-d9cb-469f-a165-70867728950e"
        XCTAssertEqual(ChatUUID(good)?.description, good)
        XCTAssertNil(ChatUUID(good.uppercased()))
        XCTAssertNil(ChatUUID("0f8fad5bd9cb469fa16570867728950e"))
        XCTAssertNil(ChatUUID("0f8fad5b-d9cb-169f-a165-70867728950e"), "version 1")
        XCTAssertNil(ChatUUID("0f8fad5b-d9cb-469f-c165-70867728950e"), "not the RFC 4122 variant")
        XCTAssertNil(ChatUUID("{f8fad5b-d9cb-469f-a165-70867728950e"))
        for _ in 0..<100 {
            let uuid = ChatUUID.random()
            XCTAssertEqual(ChatUUID(uuid.description), uuid)
            XCTAssertEqual(ChatUUID(bytes: uuid.bytes), uuid)
        }
    }

    func testTimestampsHaveExactlyOneSpelling() {
        let good = "2026-11-29T00:37:20.123Z"
        XCTAssertEqual(CanonicalTimestamp(good)?.description, good)
        XCTAssertEqual(CanonicalTimestamp("1970-01-01T00:00:00.000Z")?.millisecondsSince1970, 0)
        XCTAssertEqual(CanonicalTimestamp("2024-02-29T23:59:59.999Z")?.description, "2024-02-29T23:59:59.999Z")
        for bad in ["2026-11-29T00:37:20Z", "2026-11-29T00:37:20.12Z", "2026-11-29T00:37:20.123+00:00",
                    "2026-11-29t00:37:20.123Z", "2026-11-29T00:37:20.123z", "2025-02-29T00:00:00.000Z",
                    "2026-13-01T00:00:00.000Z", "2026-11-29T24:00:00.000Z", "2026-11-29T23:59:60.000Z"] {
            XCTAssertNil(CanonicalTimestamp(bad), bad)
        }
        let now = CanonicalTimestamp(millisecondsSince1970: 1_796_000_000_123)
        XCTAssertEqual(CanonicalTimestamp(now.description), now)
    }

    func testBareDIDsFollowTheContractsGrammar() {
        XCTAssertTrue(BareDIDGrammar.accepts("did:plc:abcdefghijklmnopqrstuvwx"))
        XCTAssertTrue(BareDIDGrammar.accepts("did:web:chat.catbird.blue"))
        for bad in ["did:plc:ABCDEFGHIJKLMNOPQRSTUVWX", "did:plc:abc", "did:web:localhost", "did:web:localhost%3A8080",
                    "did:web:example.test", "did:web:1.2.3.4", "did:web:a.b:path", "did:key:z6Mk", "did:web:-a.blue",
                    "did:web:Chat.catbird.blue"] {
            XCTAssertFalse(BareDIDGrammar.accepts(bad), bad)
        }
    }

    func testKeyIDsAreTheThumbprintOfTheKey() throws {
        let key = try Ed25519PrivateKey.generate()
        let id = ChatKeyID.of(publicKey: key.publicKey.bytes)
        XCTAssertEqual(id.utf8.count, 43)
        XCTAssertTrue(ChatKeyID.isWellFormed(id))
        XCTAssertFalse(ChatKeyID.isWellFormed(id + "="))
        XCTAssertFalse(ChatKeyID.isWellFormed(String(id.dropLast()) + "+"))
    }
}
