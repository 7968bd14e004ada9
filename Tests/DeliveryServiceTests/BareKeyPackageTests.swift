import Foundation
import MLS
import XCTest

/// KeyPackages published bare, as OpenMLS clients (the Catbird app) upload them, beside wrapped ones:
/// accepted, served back in the form published, the same KeyPackageRef, consumed by the commit that
/// adds them, and joinable (issue 17).
final class BareKeyPackageTests: ServiceTestCase {
    func testBareAndWrappedPublishedFetchedAndConsumed() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), bob = flow.user(), carol = flow.user()
        let bobBundle = try bob.makeKeyPackage()
        let bare = bobBundle.keyPackage.encoded()
        let published = try service.call("blue.catbird.mls.publishKeyPackage", as: bob.identity, json: [
            "keyPackage": ["$bytes": Base64Test.encode(bare)],
            "cipherSuite": "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519",
        ])
        XCTAssertEqual(published.status, 200, "\(published.json)")
        XCTAssertEqual(published.json["keyPackageHash"] as? String, flow.hex(bobBundle.ref))
        let carolBundle = try flow.publishKeyPackage(carol)

        let fetched = try service.call("blue.catbird.mls.getKeyPackages", as: alice.identity,
                                       query: [("dids", bob.did), ("dids", carol.did)])
        XCTAssertEqual(fetched.status, 200)
        var served: [String: [UInt8]] = [:]
        for entry in fetched.json["keyPackages"] as? [[String: Any]] ?? [] {
            if let did = entry["did"] as? String { served[did] = Base64Test.decode(entry["keyPackage"]) }
        }
        XCTAssertEqual(served[bob.did], bare, "served bare, as published")
        XCTAssertEqual(served[carol.did], MLSMessage(body: .keyPackage(carolBundle.keyPackage)).encoded(), "served wrapped")

        let convo = try flow.createConvo(alice, with: [bob, carol])
        for user in [bob, carol] {
            let stats = try service.call("blue.catbird.mls.getKeyPackageStats", as: user.identity).json
            XCTAssertEqual(stats["available"] as? Int, 0)
            XCTAssertEqual(stats["consumed"] as? Int, 1)
        }
        try flow.join(bob, convo)
        try flow.join(carol, convo)
        XCTAssertEqual(try flow.send(bob, convo, "joined from a bare KeyPackage").status, 200)
        XCTAssertEqual(try flow.sync(carol, convo), ["joined from a bare KeyPackage"])
    }
}
