import Foundation
import ChatProtocol
import JSON
import Primitives
import XCTest

/// A well-formed applicationSendBody, and ways to spoil it.
enum Fixture {
    static let did = "did:plc:abcdefghijklmnopqrstuvwx"

    static func coordinates() -> ConversationCoordinates {
        ConversationCoordinates(conversationID: ChatUUID.random(), generation: 0, stateVersion: 3,
                                groupID: [UInt8](repeating: 7, count: 32), epoch: 2,
                                groupContextHash: [UInt8](repeating: 8, count: 32),
                                confirmationTag: [UInt8](repeating: 9, count: 32), lifecycle: .active)
    }

    static func sendBody(key: Ed25519PrivateKey, device: ChatUUID = .random()) -> ChatValue {
        let prior = coordinates()
        let messageID = ChatUUID.random()
        let message: [UInt8] = [0, 1, 0, 2] + [UInt8](repeating: 0xAB, count: 60)
        return .tagged("applicationSendBody", [
            "signatureDomain": .text(SignedMutationKind.applicationSend.domain),
            "messageId": .uuid(messageID), "actorDid": .text(did), "actorDeviceId": .uuid(device),
            "keyId": .text(ChatKeyID.of(publicKey: key.publicKey.bytes)), "authGeneration": .integer(1),
            "prior": prior.value, "aad": MLSAuthenticatedData.applicationAAD(messageID: messageID, prior: prior),
            "applicationMessage": .object([
                "framing": .text("mlsMessage"), "contentType": .text("privateMessageApplication"),
                "bytes": .bytes(message), "sha256": .bytes(HashAlgorithm.sha256.hash(message)),
            ]),
            "blobBindings": .array([]), "signedAt": .text(CanonicalTimestamp(Date()).description),
        ])
    }

    /// The JSON a client sends to sendMessage.
    static func sendInput(_ request: SignedRequest) -> [UInt8] {
        ChatJSON.render(.object(["signedRequest": request.wrapper]))
    }
}

final class ProjectionTests: XCTestCase {
    let nsid = "blue.catbird.chat.sendMessage"

    func testTheSchemaHoldsEveryMethodAndEveryDomain() throws {
        let schema = ChatSchema.contract
        XCTAssertEqual(schema.methods.count, 32, "the contract's 31 and updatePushToken")
        for kind in SignedMutationKind.allCases {
            guard case .object(let object) = schema.def(kind.rawValue), case .string(let rule) = object.properties["signatureDomain"] else {
                return XCTFail("\(kind) has no signatureDomain")
            }
            XCTAssertEqual(rule.constant, kind.domain, "\(kind)")
        }
    }

    func testAWellFormedRequestProjectsAndRendersBackToTheSameValue() throws {
        let key = try Ed25519PrivateKey.generate()
        let request = SignedRequest.sign(Fixture.sendBody(key: key), kind: .applicationSend, key: key)
        let parsed = try SignedRequest.parse(input: Fixture.sendInput(request), method: nsid)
        XCTAssertEqual(parsed.body, request.body)
        XCTAssertEqual(parsed.canonicalBody, request.canonicalBody)
        XCTAssertEqual(parsed.kind, .applicationSend)
        XCTAssertNoThrow(try parsed.verified(publicKey: key.publicKey.bytes))
    }

    func testBareBase64IsAcceptedForBytesAndGivesTheSameTranscript() throws {
        let key = try Ed25519PrivateKey.generate()
        let request = SignedRequest.sign(Fixture.sendBody(key: key), kind: .applicationSend, key: key)
        var text = String(decoding: Fixture.sendInput(request), as: UTF8.self)
        // {"$bytes":"…"} → "…" for the signature.
        let b64 = Base64Test.encode(request.signature)
        text = text.replacingOccurrences(of: "{\"$bytes\":\"\(b64)\"}", with: "\"\(b64)\"")
        let parsed = try SignedRequest.parse(input: Array(text.utf8), method: nsid)
        XCTAssertEqual(parsed.requestDigest, request.requestDigest)
    }

    /// Each spoiled input is refused, naming its field.
    func testHostileInputIsRefused() throws {
        let key = try Ed25519PrivateKey.generate()
        let request = SignedRequest.sign(Fixture.sendBody(key: key), kind: .applicationSend, key: key)
        let good = String(decoding: Fixture.sendInput(request), as: UTF8.self)
        let device = request.body["actorDeviceId"]!.uuid!.description
        let spoiled: [(String, String)] = [
            ("null", good.replacingOccurrences(of: "\"blobBindings\":[]", with: "\"blobBindings\":null")),
            ("float", good.replacingOccurrences(of: "\"authGeneration\":1", with: "\"authGeneration\":1.0")),
            ("exponent", good.replacingOccurrences(of: "\"authGeneration\":1", with: "\"authGeneration\":1e0")),
            ("negative", good.replacingOccurrences(of: "\"epoch\":2", with: "\"epoch\":-2")),
            ("unknown field", good.replacingOccurrences(of: "\"blobBindings\":[]", with: "\"blobBindings\":[],\"extra\":1")),
            ("uppercase UUID", good.replacingOccurrences(of: device, with: device.uppercased())),
            ("duplicate key", good.replacingOccurrences(of: "\"blobBindings\":[]", with: "\"blobBindings\":[],\"blobBindings\":[]")),
            ("unknown union tag", good.replacingOccurrences(of: "#applicationSendBody", with: "#typingBody")),
            ("$type on a plain object", good.replacingOccurrences(of: "\"prior\":{", with: "\"prior\":{\"$type\":\"blue.catbird.chat.defs#conversationCoordinates\",")),
            ("bad timestamp", good.replacingOccurrences(of: "Z\"", with: "+00:00\"")),
            ("wrong constant", good.replacingOccurrences(of: "privateMessageApplication", with: "publicMessageCommit")),
            ("enum outside its values", good.replacingOccurrences(of: "\"lifecycle\":\"active\"", with: "\"lifecycle\":\"paused\"")),
            ("above the maximum", good.replacingOccurrences(of: "\"authGeneration\":1", with: "\"authGeneration\":9007199254740992")),
        ]
        for (what, text) in spoiled {
            XCTAssertNotEqual(text, good, "\(what): the fixture did not change")
            XCTAssertThrowsError(try SignedRequest.parse(input: Array(text.utf8), method: nsid), what)
        }
    }

    func testTheContractsOrderIsEnforcedNotRepaired() throws {
        let schema = ChatSchema.contract
        func manifest(_ dids: [String]) -> [UInt8] {
            let participants = dids.map { ChatValue.object(["userDid": .text($0), "role": .text("member"), "status": .text("active")]) }
            let leaf = ChatValue.object(["userDid": .text(dids[0]), "deviceId": .uuid(.random()), "leafOrigin": .text("genesis")])
            return ChatJSON.render(.object(["participants": .array(participants), "actorLeaf": leaf]))
        }
        let a = "did:plc:aaaaaaaaaaaaaaaaaaaaaaaa", b = "did:plc:bbbbbbbbbbbbbbbbbbbbbbbb"
        let projection = ChatProjection()
        XCTAssertNoThrow(try projection.project(json: manifest([a, b]), as: .ref("creationManifest")))
        XCTAssertThrowsError(try projection.project(json: manifest([b, a]), as: .ref("creationManifest")))
        XCTAssertThrowsError(try projection.project(json: manifest([a, a]), as: .ref("creationManifest")))
        _ = schema
    }

    func testCBORProjectionReadsBackAStoredBody() throws {
        let key = try Ed25519PrivateKey.generate()
        let request = SignedRequest.sign(Fixture.sendBody(key: key), kind: .applicationSend, key: key)
        let decoded = try DAGCBOR.decode(request.canonicalBody)
        let body = try ChatProjection().project(cbor: decoded, taggedDef: "applicationSendBody", form: .signing)
        XCTAssertEqual(body, request.body)
    }
}

final class SignatureTests: XCTestCase {
    func testOnlyTheDevicesKeyOverTheExactTranscriptVerifies() throws {
        let key = try Ed25519PrivateKey.generate()
        let other = try Ed25519PrivateKey.generate()
        let request = SignedRequest.sign(Fixture.sendBody(key: key), kind: .applicationSend, key: key)
        XCTAssertNoThrow(try request.verified(publicKey: key.publicKey.bytes))
        XCTAssertThrowsError(try request.verified(publicKey: other.publicKey.bytes)) { XCTAssertEqual($0 as? SignedRequest.VerificationError, .keyMismatch) }

        var tampered = request.signature
        tampered[0] ^= 1
        let forged = SignedRequest(kind: .applicationSend, body: request.body, signature: tampered)
        XCTAssertThrowsError(try forged.verified(publicKey: key.publicKey.bytes)) { XCTAssertEqual($0 as? SignedRequest.VerificationError, .badSignature) }

        // The same body signed under another domain does not verify as this kind.
        let wrongDomain = key.signature(for: Array(SignedMutationKind.typing.domain.utf8) + request.canonicalBody)
        let replayed = SignedRequest(kind: .applicationSend, body: request.body, signature: wrongDomain)
        XCTAssertThrowsError(try replayed.verified(publicKey: key.publicKey.bytes))
    }
}

enum Base64Test {
    static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}
