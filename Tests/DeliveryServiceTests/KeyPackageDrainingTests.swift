import Basics
import Foundation
import MLS
import XCTest

/// The KeyPackage-draining attack against the real server: requesters create conversations with a
/// target only to use up its one-time KeyPackages, so that no one else can add it. One requester is
/// stopped at KEY_PACKAGE_USES_PER_REQUESTER (429 TooManyKeyPackageUses); many together spend only
/// KEY_PACKAGE_USES_PER_TARGET of its packages per window, after which everyone is handed its
/// last-resort package (RFC 9750 §5.1), which is never consumed: a known user still reaches it.
final class KeyPackageDrainingTests: XCTestCase {
    static let suiteName = "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519"

    func publish(_ bundle: KeyPackageBundle, of user: MLSTestUser, lastResort: Bool? = nil,
                 on service: ServiceHarness) throws -> ServiceHarness.Reply {
        var body: [String: Any] = ["keyPackage": MLSTestUser.bytes(MLSMessage(body: .keyPackage(bundle.keyPackage))),
                                   "cipherSuite": Self.suiteName]
        if let lastResort { body["lastResort"] = lastResort }
        return try service.call("blue.catbird.mls.publishKeyPackage", as: user.identity, json: body)
    }

    func stats(_ user: MLSTestUser, on service: ServiceHarness) throws -> [String: Any] {
        try service.call("blue.catbird.mls.getKeyPackageStats", as: user.identity).json
    }

    func test_drainingAUsersKeyPackages_isStopped_andAKnownUserStillReachesIt() throws {
        let service = try ServiceHarness(environment: ["KEY_PACKAGE_USES_PER_REQUESTER": "3", "KEY_PACKAGE_USES_PER_TARGET": "6",
                                                       "RATE_LIMIT_ENABLED": "0"])
        defer { service.shutdown() }
        let flow = ChatFlow(service: service)
        let bob = flow.user()
        for _ in 0..<10 { try flow.publishKeyPackage(bob) }
        // Marked by the draft-ietf-mls-extensions last_resort extension alone.
        let lastResort = try bob.makeKeyPackage(extensions: [Extension(extensionType: .lastResort, extensionData: [])])
        XCTAssertEqual(try publish(lastResort, of: bob, on: service).status, 200)
        XCTAssertEqual(try stats(bob, on: service)["available"] as? Int, 10)
        XCTAssertEqual(try stats(bob, on: service)["lastResort"] as? [String], [Self.suiteName])

        // One requester: three of bob's packages, then 429 with Retry-After, whatever it retries.
        let mallory = flow.user()
        var statuses: [Int] = []
        for _ in 0..<6 {
            let (reply, _) = try flow.tryCreateConvo(mallory, with: [bob])
            statuses.append(reply.status)
            if reply.status == 429 {
                XCTAssertEqual(reply.error, "TooManyKeyPackageUses")
                XCTAssertGreaterThanOrEqual(Int(reply.header("Retry-After") ?? "") ?? 0, 3000)
            }
        }
        XCTAssertEqual(statuses, [200, 200, 200, 429, 429, 429])

        // Sybils: the first spends the rest of bob's allowance for the window; the others are
        // handed the last-resort package, which they may use (up to their own limit) without
        // consuming anything.
        let sybils = (0..<3).map { _ in flow.user() }
        var served: [[UInt8]] = []
        for sybil in sybils {
            for _ in 0..<3 {
                let package = try XCTUnwrap(try flow.keyPackages(as: sybil, for: [bob]).first)
                served.append(package.reference(suite: bob.suite))
                let (reply, _) = try flow.tryCreateConvo(sybil, with: [bob])
                XCTAssertEqual(reply.status, 200, "\(reply.json)")
            }
        }
        XCTAssertFalse(served.prefix(3).contains(lastResort.ref))
        XCTAssertEqual(Array(served.dropFirst(3)), Array(repeating: lastResort.ref, count: 6))
        let afterAttack = try stats(bob, on: service)
        XCTAssertEqual(afterAttack["available"] as? Int, 4, "the attack used up 6 of bob's 10 one-time packages, no more")

        // A known user, during the window: gets bob's last-resort package, creates a conversation
        // with him, bob joins with it and they talk. A second one does the same with the same package.
        let alice = flow.user(), carol = flow.user()
        for friend in [alice, carol] {
            let started = Date()
            let package = try XCTUnwrap(try flow.keyPackages(as: friend, for: [bob]).first)
            XCTAssertEqual(package.reference(suite: bob.suite), lastResort.ref)
            let convo = try flow.createConvo(friend, with: [bob])
            let took = Date().timeIntervalSince(started)
            try flow.join(bob, convo)
            XCTAssertEqual(try flow.send(friend, convo, "still reachable").status, 200)
            XCTAssertEqual(try flow.sync(bob, convo), ["still reachable"])
            print("KeyPackage draining: a known user got bob's last-resort package and created a conversation with him "
                  + "in \(String(format: "%.3f", took)) s (getKeyPackages + createConvo), after the attackers consumed "
                  + "\(10 - (afterAttack["available"] as? Int ?? 0)) of his 10 one-time packages and were refused "
                  + "\(statuses.filter { $0 == 429 }.count) times")
        }
        let row = try service.app.database.query("SELECT consumed_at IS NULL AS kept FROM key_packages WHERE key_package_ref = $1",
                                                 [lastResort.ref])
        XCTAssertEqual(try row.first?.bool("kept"), true, "a last-resort package is never consumed")
        XCTAssertEqual(try stats(bob, on: service)["available"] as? Int, 4)
    }

    /// `lastResort: true` marks a package without the extension; a last_resort extension that
    /// carries data is not the empty struct the draft defines.
    func test_lastResortFlag_andAMalformedMark() throws {
        let service = try ServiceHarness()
        defer { service.shutdown() }
        let flow = ChatFlow(service: service)
        let dave = flow.user()
        XCTAssertEqual(try publish(try dave.makeKeyPackage(), of: dave, lastResort: true, on: service).status, 200)
        XCTAssertEqual(try stats(dave, on: service)["available"] as? Int, 0)
        XCTAssertEqual(try stats(dave, on: service)["needsReplenish"] as? Bool, true)
        XCTAssertEqual(try stats(dave, on: service)["lastResort"] as? [String], [Self.suiteName])
        let malformed = try dave.makeKeyPackage(extensions: [Extension(extensionType: .lastResort, extensionData: [0])])
        let reply = try publish(malformed, of: dave, on: service)
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "InvalidKeyPackage")
    }
}
