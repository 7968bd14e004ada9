import Foundation
import MLS
import XCTest

/// Suite 0x004D (`MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519`, the Catbird client's) through the
/// real server and PostgreSQL: KeyPackages, createConvo with a Welcome, addMembers, a self-update
/// with an UpdatePath, removeMember, messages in every epoch; and the key-size checks on publication.
final class XWingConversationTests: ServiceTestCase {
    static let suiteName = "MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519"

    func xwingFlow() throws -> ChatFlow {
        var flow = ChatFlow(service: try service)
        flow.suite = .mls256XWingChaCha20Poly1305SHA256Ed25519
        flow.suiteName = Self.suiteName
        return flow
    }

    func test_lifecycle_create_add_join_update_remove_messages() throws {
        let flow = try xwingFlow()
        let alice = flow.user(), bob = flow.user(), carol = flow.user()
        let bobPackage = try flow.publishKeyPackage(bob)
        XCTAssertEqual(bobPackage.keyPackage.initKey.count, 1216)
        try flow.publishKeyPackage(carol)

        // Fetching by suite finds the X-Wing package; the suite-1 filter does not.
        let found = try service.call("blue.catbird.mls.getKeyPackages", as: alice.identity,
                                     query: [("dids", bob.did), ("cipherSuite", Self.suiteName)])
        XCTAssertEqual((found.json["keyPackages"] as? [[String: Any]])?.first?["cipherSuite"] as? String, Self.suiteName)
        let other = try service.call("blue.catbird.mls.getKeyPackages", as: alice.identity,
                                     query: [("dids", bob.did), ("cipherSuite", "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519")])
        XCTAssertEqual((other.json["keyPackages"] as? [[String: Any]])?.count ?? 0, 0)

        let convo = try flow.createConvo(alice, with: [bob])
        let view = try service.call("blue.catbird.mls.getConvo", as: alice.identity, query: [("convoId", convo)]).json
        XCTAssertEqual(view["cipherSuite"] as? String, Self.suiteName)
        try flow.join(bob, convo)
        XCTAssertEqual(bob.groups[convo]?.epochAuthenticator, alice.groups[convo]?.epochAuthenticator)
        XCTAssertEqual(try flow.send(alice, convo, "post-quantum hello").status, 200)
        XCTAssertEqual(try flow.sync(bob, convo), ["post-quantum hello"])

        // addMembers: Carol, by a commit whose UpdatePath is sealed with X-Wing, and her Welcome.
        let added = try XCTUnwrap(alice.groups[convo]).add(keyPackages: try flow.keyPackages(as: alice, for: [carol]))
        let addReply = try service.call("blue.catbird.mls.addMembers", as: alice.identity, json: [
            "convoId": convo, "didList": [carol.did], "commit": MLSTestUser.bytes(added.commit),
            "welcomeMessage": MLSTestUser.bytes(try XCTUnwrap(added.welcome)),
            "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(added.groupInfo))),
        ])
        XCTAssertEqual(addReply.status, 200, "\(addReply.json)")
        alice.groups[convo] = added.group
        XCTAssertEqual(try flow.sync(bob, convo), [])
        try flow.join(carol, convo)
        XCTAssertEqual(carol.groups[convo]?.epochAuthenticator, alice.groups[convo]?.epochAuthenticator)

        // Bob's self-update: a new X-Wing path, checked by the server, processed by the others.
        let updated = try flow.commitGroupChange(bob, convo, try XCTUnwrap(bob.groups[convo]).update())
        XCTAssertEqual(updated.status, 200, "\(updated.json)")
        XCTAssertEqual(try flow.sync(carol, convo), [])
        XCTAssertEqual(carol.groups[convo]?.epochAuthenticator, bob.groups[convo]?.epochAuthenticator)
        XCTAssertEqual(try flow.send(carol, convo, "carol in epoch 3").status, 200)
        XCTAssertEqual(try flow.sync(alice, convo), ["carol in epoch 3"])
        XCTAssertEqual(try flow.sync(bob, convo), ["carol in epoch 3"])
        XCTAssertEqual(alice.groups[convo]?.epoch, 3)

        // removeMember: Carol is out, and can neither read nor send.
        let removed = try flow.remove(carol, by: alice, from: convo, idempotencyKey: "remove-carol")
        XCTAssertEqual(removed.status, 200, "\(removed.json)")
        XCTAssertEqual(try flow.send(alice, convo, "just us").status, 200)
        XCTAssertEqual(try flow.sync(bob, convo), ["just us"])
        XCTAssertEqual(try flow.send(carol, convo, "still here?").status, 403)
        XCTAssertEqual(try flow.epoch(alice, convo), 4)
    }

    /// Publication checks sizes without ML-KEM: an init key of 1215 bytes (re-signed, so only the
    /// size is wrong) is refused, and so is an X-Wing KeyPackage announced as another suite.
    func test_publishKeyPackage_checksSuiteAndKeySizes() throws {
        let flow = try xwingFlow()
        let dave = flow.user()
        var bundle = try dave.makeKeyPackage()
        let good = bundle.keyPackage
        var short = good
        short.initKey.removeLast()
        try short.sign(with: dave.signingKey, suite: flow.suite)
        let refused = try service.call("blue.catbird.mls.publishKeyPackage", as: dave.identity, json: [
            "keyPackage": MLSTestUser.bytes(MLSMessage(body: .keyPackage(short))), "cipherSuite": Self.suiteName,
        ])
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.error, "InvalidKeyPackage")

        let mislabelled = try service.call("blue.catbird.mls.publishKeyPackage", as: dave.identity, json: [
            "keyPackage": MLSTestUser.bytes(MLSMessage(body: .keyPackage(good))),
            "cipherSuite": "MLS_128_DHKEMX25519_CHACHA20POLY1305_SHA256_Ed25519",
        ])
        XCTAssertEqual(mislabelled.status, 400)
        XCTAssertEqual(mislabelled.error, "InvalidCipherSuite")

        bundle = try flow.publishKeyPackage(dave)
        let stats = try service.call("blue.catbird.mls.getKeyPackageStats", as: dave.identity).json
        XCTAssertEqual(stats["available"] as? Int, 1)
        let bySuite = stats["byCipherSuite"] as? [[String: Any]] ?? []
        XCTAssertEqual(bySuite.first?["cipherSuite"] as? String, Self.suiteName)
        XCTAssertEqual(try service.call("blue.catbird.mls.getKeyPackageStats", as: dave.identity,
                                        query: [("cipherSuite", "77")]).json["available"] as? Int, 1)
    }
}
