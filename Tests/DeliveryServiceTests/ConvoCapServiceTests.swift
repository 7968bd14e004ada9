import Basics
import Foundation
import MLS
import XCTest

/// The conversation-flooding attack against the real server: one user creating conversations
/// without end. MAX_CONVOS_PER_USER counts the conversations a user created and still belongs to;
/// past it createConvo answers 409 TooManyConvos, and being added by others never counts.
final class ConvoCapServiceTests: XCTestCase {
    static let nsid = "blue.catbird.mls.createConvo"

    /// A createConvo body for a group of `creator` alone (as ChatFlow makes one).
    func soloConvo(_ creator: MLSTestUser, idempotencyKey: String? = nil) throws -> [String: Any] {
        let group = try Group.create(suite: creator.suite, credential: creator.credential, signingKey: creator.signingKey)
        let output = try group.update()
        var body: [String: Any] = [
            "groupId": Hex.encode(group.groupID), "cipherSuite": "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519",
            "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(output.groupInfo))),
        ]
        if let idempotencyKey { body["idempotencyKey"] = idempotencyKey }
        return body
    }

    func test_convoFlood_isCappedPerCreator_andOthersAddingYouDoesNotCount() throws {
        let service = try ServiceHarness(environment: ["MAX_CONVOS_PER_USER": "3", "RATE_LIMIT_ENABLED": "0"])
        defer { service.shutdown() }
        let flow = ChatFlow(service: service)
        let mallory = flow.user(), bob = flow.user()

        // Bob adds mallory to two conversations of his: they are not hers to count.
        for _ in 0..<2 {
            try flow.publishKeyPackage(mallory)
            let convo = try flow.createConvo(bob, with: [mallory])
            try flow.join(mallory, convo)
        }
        var statuses: [Int] = []
        for index in 0..<10 {
            let body = try soloConvo(mallory, idempotencyKey: index == 2 ? "third" : nil)
            let reply = try service.call(Self.nsid, as: mallory.identity, json: body)
            statuses.append(reply.status)
            if reply.status != 200 {
                XCTAssertEqual(reply.error, "TooManyConvos")
                XCTAssertTrue((reply.json["message"] as? String ?? "").contains("at most 3"), "\(reply.json)")
            }
            // A retry of the third, stored success under its idempotency key is answered as stored.
            if index == 2 {
                let retry = try service.call(Self.nsid, as: mallory.identity, json: body)
                XCTAssertEqual(retry.status, 200, "\(retry.json)")
                XCTAssertEqual(retry.json["id"] as? String, reply.json["id"] as? String)
            }
        }
        XCTAssertEqual(statuses, [200, 200, 200] + Array(repeating: 409, count: 7))
        // With an idempotency key the cheap check is skipped; the transaction refuses all the same.
        let keyed = try service.call(Self.nsid, as: mallory.identity, json: try soloConvo(mallory, idempotencyKey: "fourth"))
        XCTAssertEqual(keyed.status, 409)
        XCTAssertEqual(keyed.error, "TooManyConvos")
        let count = try service.app.database.query("SELECT count(*) AS n FROM convos WHERE creator_did = $1", [mallory.did])
        XCTAssertEqual(try count[0].int("n"), 3)

        // Bob, who created two and is in them, still has his own allowance; mallory can still be added.
        try flow.publishKeyPackage(mallory)
        let third = try flow.createConvo(bob, with: [mallory])
        try flow.join(mallory, third)
        XCTAssertEqual(try service.call(Self.nsid, as: bob.identity, json: try soloConvo(bob)).error, "TooManyConvos")
    }
}
