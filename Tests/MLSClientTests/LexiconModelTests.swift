import Foundation
import Lexicon
@testable import MLSClient
import XCTest

/// The Codable models against the lexicon shapes (lexicon/*.json): `$bytes` both ways, optional
/// fields omitted or absent, required fields enforced.
final class LexiconModelTests: XCTestCase {
    func object(_ value: some Encodable) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    func testBytesEncodeAsDollarBytesWithoutPadding() throws {
        let json = try object(["b": XRPCBytes([0xFF, 0xEE])])
        XCTAssertEqual(json["b"] as? [String: String], ["$bytes": "/+4"])
        let empty = try object(["b": XRPCBytes([])])
        XCTAssertEqual(empty["b"] as? [String: String], ["$bytes": ""])
    }

    func testBytesDecodeFromDollarBytesAndPlainBase64() throws {
        struct Box: Decodable { var b: XRPCBytes }
        for text in [#"{"b":{"$bytes":"AQID"}}"#, #"{"b":"AQID"}"#, #"{"b":{"$bytes":"AQI"}}"#, #"{"b":"AQI="}"#] {
            let box = try JSONDecoder().decode(Box.self, from: Data(text.utf8))
            XCTAssertEqual(box.b.bytes, text.contains("AQID") ? [1, 2, 3] : [1, 2], text)
        }
    }

    func testBytesRejectMalformedBase64() {
        struct Box: Decodable { var b: XRPCBytes }
        for text in [#"{"b":{"$bytes":"A"}}"#, #"{"b":"!!!!"}"#, #"{"b":{"$bytes":5}}"#, #"{"b":{"bytes":"AQID"}}"#, #"{"b":{"$bytes":"AQ==AQ=="}}"#] {
            XCTAssertThrowsError(try JSONDecoder().decode(Box.self, from: Data(text.utf8)), text)
        }
    }

    func testBytesRoundTripEveryLength() throws {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let data = try JSONEncoder().encode(XRPCBytes(bytes))
            XCTAssertEqual(try JSONDecoder().decode(XRPCBytes.self, from: data).bytes, bytes)
            XCTAssertFalse(String(decoding: data, as: UTF8.self).contains("="))
        }
    }

    func testCreateConvoOmitsAbsentOptionals() throws {
        let input = CreateConvoInput(groupId: "abcd", cipherSuite: "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519", groupInfo: [9])
        let json = try object(input)
        XCTAssertEqual(Set(json.keys), ["groupId", "cipherSuite", "groupInfo"])
        XCTAssertEqual(json["groupInfo"] as? [String: String], ["$bytes": "CQ"])
    }

    func testAddMembersCarriesEveryField() throws {
        let input = AddMembersInput(convoId: "c", commit: [1], welcomeMessage: [2], groupInfo: [3],
                                    keyPackageHashes: [KeyPackageHash(did: "did:plc:x", hash: "aa")],
                                    idempotencyKey: "k")
        let json = try object(input)
        XCTAssertEqual(Set(json.keys), ["convoId", "commit", "welcomeMessage", "groupInfo", "keyPackageHashes", "idempotencyKey"])
        XCTAssertEqual(json["welcomeMessage"] as? [String: String], ["$bytes": "Ag"])
        let hashes = try XCTUnwrap(json["keyPackageHashes"] as? [[String: String]])
        XCTAssertEqual(hashes, [["did": "did:plc:x", "hash": "aa"]])
    }

    func testConvoViewDecodesWithAndWithoutOptionals() throws {
        let full = """
        {"id":"ab","groupId":"ab","creator":"did:plc:a","epoch":3,"cipherSuite":"MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519",
         "createdAt":"2026-11-22T12:00:00.000Z","lastMessageAt":"2026-11-22T12:01:00.000Z","metadata":{"name":"n"},
         "members":[{"did":"did:plc:a","joinedAt":"2026-11-22T12:00:00.000Z","leafIndex":0,"isAdmin":true,"credential":{"$bytes":"AQ"}},
                    {"did":"did:plc:b","joinedAt":"2026-11-22T12:00:00.000Z","isAdmin":false}]}
        """
        let view = try JSONDecoder().decode(ConvoView.self, from: Data(full.utf8))
        XCTAssertEqual(view.epoch, 3)
        XCTAssertEqual(view.metadata?.name, "n")
        XCTAssertNil(view.metadata?.description)
        XCTAssertEqual(view.members[0].credential?.bytes, [1])
        XCTAssertEqual(view.members[0].leafIndex, 0)
        XCTAssertNil(view.members[1].leafIndex)
        XCTAssertNil(view.members[1].credential)

        let minimal = #"{"id":"ab","groupId":"ab","creator":"did:plc:a","members":[],"epoch":0,"cipherSuite":"1","createdAt":"x"}"#
        let bare = try JSONDecoder().decode(ConvoView.self, from: Data(minimal.utf8))
        XCTAssertNil(bare.lastMessageAt)
        XCTAssertNil(bare.metadata)
    }

    func testConvoViewMissingRequiredFieldFails() {
        let missingEpoch = #"{"id":"ab","groupId":"ab","creator":"did:plc:a","members":[],"cipherSuite":"1","createdAt":"x"}"#
        XCTAssertThrowsError(try JSONDecoder().decode(ConvoView.self, from: Data(missingEpoch.utf8)))
    }

    func testMessagesOutputAndKeyPackagesOutput() throws {
        let messages = """
        {"messages":[{"id":"m1","convoId":"ab","sender":"did:plc:a","ciphertext":{"$bytes":"AAEC"},"epoch":1,"seq":7,
          "createdAt":"t","messageType":"commit"}],"lastSeq":7,"cursor":"7"}
        """
        let output = try JSONDecoder().decode(GetMessagesOutput.self, from: Data(messages.utf8))
        XCTAssertEqual(output.messages.first?.ciphertext?.bytes, [0, 1, 2])
        XCTAssertTrue(output.messages[0].isCommit)
        XCTAssertEqual(output.cursor, "7")

        let packages = """
        {"keyPackages":[{"did":"did:plc:a","keyPackage":{"$bytes":"AQ"},"keyPackageHash":"00ff","cipherSuite":"c","expiresAt":"t"}],
         "missing":["did:plc:b"]}
        """
        let refs = try JSONDecoder().decode(GetKeyPackagesOutput.self, from: Data(packages.utf8))
        XCTAssertEqual(refs.keyPackages[0].keyPackage.bytes, [1])
        XCTAssertEqual(refs.missing, ["did:plc:b"])
        let noMissing = try JSONDecoder().decode(GetKeyPackagesOutput.self, from: Data(#"{"keyPackages":[]}"#.utf8))
        XCTAssertNil(noMissing.missing)
    }

    func testOutputsOfTheProcedures() throws {
        func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T { try JSONDecoder().decode(type, from: Data(text.utf8)) }
        XCTAssertEqual(try decode(AddMembersOutput.self, #"{"success":true,"newEpoch":2,"addedMembers":["did:plc:b"]}"#).newEpoch, 2)
        XCTAssertEqual(try decode(RemoveMemberOutput.self, #"{"ok":true,"newEpoch":5}"#).newEpoch, 5)
        XCTAssertEqual(try decode(LeaveConvoOutput.self, #"{"success":true,"pendingRemoval":true}"#).pendingRemoval, true)
        XCTAssertEqual(try decode(ProcessExternalCommitOutput.self, #"{"epoch":9,"rejoinedAt":"t"}"#).epoch, 9)
        XCTAssertEqual(try decode(GetGroupInfoOutput.self, #"{"groupInfo":"AQ","epoch":1}"#).groupInfo.bytes, [1])
        XCTAssertEqual(try decode(GetWelcomeOutput.self, #"{"convoId":"ab","welcome":{"$bytes":"Ag"}}"#).welcome.bytes, [2])
        let batch = try decode(PublishKeyPackagesOutput.self, #"{"succeeded":1,"failed":1,"errors":[{"index":1,"error":"InvalidKeyPackage"}]}"#)
        XCTAssertEqual(batch.errors?.first?.index, 1)
        XCTAssertNil(batch.errors?.first?.message)
        let stats = try decode(GetKeyPackageStatsOutput.self, #"{"available":3,"consumed":1,"threshold":5,"needsReplenish":true}"#)
        XCTAssertTrue(stats.needsReplenish)
        XCTAssertThrowsError(try decode(SendMessageOutput.self, #"{"messageId":"m","receivedAt":"t","seq":1}"#))
    }

    func testQueryEncodingEscapesReservedCharacters() {
        let request = XRPCRequest.query("blue.catbird.mls.getKeyPackages",
                                        [("dids", "did:plc:a"), ("dids", "did:web:x+y"), ("cursor", "a b&c=d/é")])
        XCTAssertEqual(request.url(base: "http://h:1/"),
                       "http://h:1/xrpc/blue.catbird.mls.getKeyPackages?dids=did%3Aplc%3Aa&dids=did%3Aweb%3Ax%2By&cursor=a%20b%26c%3Dd%2F%C3%A9")
        XCTAssertEqual(request.httpMethod, "GET")
    }
}
