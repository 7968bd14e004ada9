import Foundation
import TestSupport
import XCTest

/// Authentication and input handling of the methods, against the real server: every bad request
/// gets its XRPC error, never a 500.
final class RequestValidationTests: ServiceTestCase {
    func test_methodWithoutToken_is401WithBearerChallenge() throws {
        let reply = try service.call("blue.catbird.mls.getConvos")
        XCTAssertEqual(reply.status, 401)
        XCTAssertEqual(reply.error, "AuthenticationRequired")
        XCTAssertEqual(reply.header("WWW-Authenticate"), "Bearer")
    }

    func test_tokenForAnotherMethod_is401BadJwtLexiconMethod() throws {
        let service = try service
        let user = service.makeUser()
        let token = user.token(audience: ServiceHarness.serviceDID, nsid: "blue.catbird.mls.getEpoch")
        let reply = try service.call("blue.catbird.mls.getConvos", headers: [("Authorization", "Bearer " + token)])
        XCTAssertEqual(reply.status, 401)
        XCTAssertEqual(reply.error, "BadJwtLexiconMethod")
    }

    func test_tokenForAnotherService_is401BadJwtAudience() throws {
        let service = try service
        let user = service.makeUser()
        let token = user.token(audience: "did:web:other.example", nsid: "blue.catbird.mls.getConvos")
        let reply = try service.call("blue.catbird.mls.getConvos", headers: [("Authorization", "Bearer " + token)])
        XCTAssertEqual(reply.status, 401)
        XCTAssertEqual(reply.error, "BadJwtAudience")
    }

    func test_replayedToken_is401() throws {
        let service = try service
        let user = service.makeUser()
        let headers = [("Authorization", "Bearer " + user.token(audience: ServiceHarness.serviceDID, nsid: "blue.catbird.mls.getConvos"))]
        XCTAssertEqual(try service.call("blue.catbird.mls.getConvos", headers: headers).status, 200)
        let replay = try service.call("blue.catbird.mls.getConvos", headers: headers)
        XCTAssertEqual(replay.status, 401)
        XCTAssertEqual(replay.error, "BadJwt")
    }

    func test_p256UserIsAccepted() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.getConvos", as: service.makeUser(curve: .p256))
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual((reply.json["conversations"] as? [Any])?.count, 0)
    }

    func test_queryWithPOST_is405() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.getConvos", as: service.makeUser(), json: [:])
        XCTAssertEqual(reply.status, 405)
        XCTAssertEqual(reply.error, "InvalidRequest")
    }

    func test_procedureWithGET_is405() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.sendMessage", as: service.makeUser(), method: "GET")
        XCTAssertEqual(reply.status, 405)
    }

    func test_malformedJSON_is400() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.sendMessage", as: service.makeUser(), rawBody: Array("{\"convoId\":".utf8),
                                     headers: [("Content-Type", "application/json")])
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "InvalidRequest")
    }

    func test_missingField_is400NamingIt() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.sendMessage", as: service.makeUser(),
                                     json: ["convoId": "abcd", "msgId": "01JC4TBXRD0000000000000000", "epoch": 1])
        XCTAssertEqual(reply.status, 400)
        XCTAssertTrue((reply.json["message"] as? String ?? "").contains("ciphertext"), "\(reply.json)")
    }

    func test_malformedBase64_is400() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.sendMessage", as: service.makeUser(), json: [
            "convoId": "abcd", "msgId": "01JC4TBXRD0000000000000000", "epoch": 1, "ciphertext": ["$bytes": "@@not base64@@"],
        ])
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "InvalidRequest")
    }

    func test_ciphertextThatIsNotAnMLSMessage_is400InvalidMessage() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.sendMessage", as: service.makeUser(), json: [
            "convoId": "abcd", "msgId": "01JC4TBXRD0000000000000000", "epoch": 1, "ciphertext": ["$bytes": "AAECAwQ"],
        ])
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "InvalidMessage")
    }

    func test_badMessageID_is400() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.sendMessage", as: service.makeUser(), json: [
            "convoId": "abcd", "msgId": "not-a-ulid", "epoch": 1, "ciphertext": ["$bytes": "AAECAwQ"],
        ])
        XCTAssertEqual(reply.status, 400)
    }

    func test_oversizedBody_is413() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.confirmWelcome", as: service.makeUser(),
                                     rawBody: [UInt8](repeating: UInt8(ascii: " "), count: 64 << 10),
                                     headers: [("Content-Type", "application/json")])
        XCTAssertEqual(reply.status, 413)
        XCTAssertEqual(reply.error, "PayloadTooLarge")
    }

    func test_deeplyNestedJSON_is400() throws {
        let service = try service
        let body = Array((String(repeating: "[", count: 4_000) + String(repeating: "]", count: 4_000)).utf8)
        let reply = try service.call("blue.catbird.mls.confirmWelcome", as: service.makeUser(), rawBody: body,
                                     headers: [("Content-Type", "application/json")])
        XCTAssertEqual(reply.status, 400)
    }

    func test_unknownConvo_is404ConvoNotFound() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.getConvo", as: service.makeUser(), query: [("convoId", "00ff")])
        XCTAssertEqual(reply.status, 404)
        XCTAssertEqual(reply.error, "ConvoNotFound")
    }

    func test_convoIDThatIsNotHex_is400() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.getEpoch", as: service.makeUser(), query: [("convoId", "zz")])
        XCTAssertEqual(reply.status, 400)
    }

    func test_getKeyPackages_reportsMissingAndLimitsDIDs() throws {
        let service = try service
        let user = service.makeUser()
        let other = TestIdentity()
        let reply = try service.call("blue.catbird.mls.getKeyPackages", as: user, query: [("dids", other.did.rawValue)])
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.json["missing"] as? [String], [other.did.rawValue])
        let tooMany = (0...100).map { _ in ("dids", TestIdentity().did.rawValue) }
        let refused = try service.call("blue.catbird.mls.getKeyPackages", as: user, query: tooMany)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.error, "TooManyDids")
        let invalid = try service.call("blue.catbird.mls.getKeyPackages", as: user, query: [("dids", "did:example:nope")])
        XCTAssertEqual(invalid.error, "InvalidDid")
    }

    func test_keyPackageStats_forNewUser() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.getKeyPackageStats", as: service.makeUser())
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.json["available"] as? Int, 0)
        XCTAssertEqual(reply.json["needsReplenish"] as? Bool, true)
    }

    func test_getWelcome_withoutWelcome_is404() throws {
        let service = try service
        let reply = try service.call("blue.catbird.mls.getWelcome", as: service.makeUser(), query: [("convoId", "00ff")])
        XCTAssertEqual(reply.status, 404)
        XCTAssertEqual(reply.error, "WelcomeNotFound")
    }

    func test_getConvos_rejectsBadLimitAndCursor() throws {
        let service = try service
        let user = service.makeUser()
        XCTAssertEqual(try service.call("blue.catbird.mls.getConvos", as: user, query: [("limit", "0")]).status, 400)
        let cursor = try service.call("blue.catbird.mls.getConvos", as: user, query: [("cursor", "garbage!")])
        XCTAssertEqual(cursor.status, 400)
        XCTAssertEqual(cursor.error, "InvalidCursor")
    }
}
