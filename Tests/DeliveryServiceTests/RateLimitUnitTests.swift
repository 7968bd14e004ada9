import Basics
@testable import DeliveryService
import XCTest

/// Token buckets, the sharded limiter, the environment syntax, and client-IP selection behind proxies.
final class RateLimitUnitTests: XCTestCase {
    let second: UInt64 = 1_000_000_000

    func test_bucket_allowsBurstThenRefusesWithRetryAfter() {
        let limiter = RateLimiter(rule: RateLimitRule(ratePerSecond: 2, burst: 3))
        for _ in 0..<3 { XCTAssertEqual(limiter.take("a", now: 10 * second), .allowed) }
        XCTAssertEqual(limiter.take("a", now: 10 * second), .limited(retryAfter: 1))
        // Half a second refills one token at 2/s.
        XCTAssertEqual(limiter.take("a", now: 10 * second + second / 2), .allowed)
        XCTAssertEqual(limiter.take("a", now: 10 * second + second / 2), .limited(retryAfter: 1))
        // Another key has its own bucket.
        XCTAssertEqual(limiter.take("b", now: 10 * second), .allowed)
    }

    func test_retryAfter_isWholeSecondsRoundedUp() {
        let limiter = RateLimiter(rule: RateLimitRule(ratePerSecond: 0.1, burst: 1))
        XCTAssertEqual(limiter.take("a", now: 0), .allowed)
        XCTAssertEqual(limiter.take("a", now: 0), .limited(retryAfter: 10))
        XCTAssertEqual(limiter.take("a", now: 7 * second), .limited(retryAfter: 3))
        XCTAssertEqual(limiter.take("a", now: 10 * second), .allowed)
    }

    func test_refillNeverExceedsBurst() {
        let limiter = RateLimiter(rule: RateLimitRule(ratePerSecond: 100, burst: 2))
        XCTAssertEqual(limiter.take("a", now: 0), .allowed)
        // An hour idle is still only two tokens.
        let later = 3600 * second
        XCTAssertEqual(limiter.take("a", now: later), .allowed)
        XCTAssertEqual(limiter.take("a", now: later), .allowed)
        XCTAssertEqual(limiter.take("a", now: later), .limited(retryAfter: 1))
    }

    func test_idleKeysAreSweptAndSweepingChangesNoDecision() {
        let limiter = RateLimiter(rule: RateLimitRule(ratePerSecond: 1, burst: 2), shardCount: 4)
        for index in 0..<100 { _ = limiter.take("key\(index)", now: 0) }
        _ = limiter.take("busy", now: 0)
        _ = limiter.take("busy", now: 0)
        XCTAssertEqual(limiter.keyCount, 101)
        // At 1.5 s the one-token keys are full again (1 + 1.5 ≥ 2) but "busy" (0 + 1.5) is not.
        limiter.sweep(now: 2 * second - 1)
        XCTAssertEqual(limiter.keyCount, 1)
        XCTAssertEqual(limiter.take("busy", now: 2 * second - 1), .allowed)
        XCTAssertEqual(limiter.take("busy", now: 2 * second - 1), .limited(retryAfter: 1))
    }

    func test_memoryIsBoundedUnderAKeyFlood() {
        let limiter = RateLimiter(rule: RateLimitRule(ratePerSecond: 1, burst: 10), shardCount: 2,
                                  maxKeysPerShard: 50, sweepEvery: 1_000_000)
        for index in 0..<10_000 { XCTAssertEqual(limiter.take("ip\(index)", now: 0), .allowed) }
        XCTAssertLessThanOrEqual(limiter.keyCount, 100)
        XCTAssertGreaterThan(limiter.keyCount, 0)
    }

    func test_periodicSweepRunsOnTheHotPath() {
        let limiter = RateLimiter(rule: RateLimitRule(ratePerSecond: 10, burst: 1), shardCount: 1, sweepEvery: 10)
        for index in 0..<9 { _ = limiter.take("old\(index)", now: 0) }
        XCTAssertEqual(limiter.keyCount, 9)
        _ = limiter.take("new", now: 60 * second)
        XCTAssertEqual(limiter.keyCount, 1)
    }

    func test_concurrentTakesNeverGrantMoreThanTheBurst() {
        let limiter = RateLimiter(rule: RateLimitRule(ratePerSecond: 0.001, burst: 100))
        let granted = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<100 where limiter.take("shared", now: 0) == .allowed { granted.increment() }
        }
        XCTAssertEqual(granted.value, 100)
    }

    // MARK: Configuration

    func test_ruleSyntax() {
        XCTAssertEqual(RateLimitRule(parsing: "10,50"), RateLimitRule(ratePerSecond: 10, burst: 50))
        XCTAssertEqual(RateLimitRule(parsing: " 0.5/s , 3 "), RateLimitRule(ratePerSecond: 0.5, burst: 3))
        for bad in ["", "10", "10,", ",5", "0,5", "-1,5", "5,0", "5,0.5", "nan,5", "inf,5", "1,2,3", "a,b", "1e10,5"] {
            XCTAssertNil(RateLimitRule(parsing: bad), bad)
        }
    }

    func test_disabledLimitsAllowEverything() {
        var configuration = RateLimitConfiguration()
        configuration.enabled = false
        let limits = RateLimits(configuration: configuration, clock: { 0 })
        for _ in 0..<10_000 {
            XCTAssertEqual(limits.checkIP("192.0.2.1"), .allowed)
            XCTAssertEqual(limits.checkDID("did:plc:a", class: .send), .allowed)
        }
        XCTAssertEqual(limits.keyCount, 0)
    }

    /// An IPv6 host may use any address of its /64 (RFC 8981): every address in it draws on one
    /// bucket, while another /64 and IPv4 addresses keep their own.
    func test_ipv6Addresses_shareTheBucketOfTheirNetwork() {
        var configuration = RateLimitConfiguration()
        configuration.perIP = RateLimitRule(ratePerSecond: 0.001, burst: 3)
        let limits = RateLimits(configuration: configuration, clock: { 0 })
        let rotated = (1...10).map { "2001:db8:aa:bb:\(String($0, radix: 16)):\(String($0 * 997, radix: 16))::\($0)" }
        XCTAssertEqual(rotated.map(limits.checkIP),
                       Array(repeating: .allowed, count: 3) + Array(repeating: .limited(retryAfter: 1000), count: 7))
        XCTAssertEqual(limits.checkIP("[2001:db8:aa:bb:ffff:ffff:ffff:ffff]:443"), .limited(retryAfter: 1000))
        XCTAssertEqual(limits.checkIP("2001:db8:aa:bc::1"), .allowed, "the next /64 is another network")
        XCTAssertEqual(limits.checkIP("192.0.2.1"), .allowed)
        XCTAssertEqual(limits.checkIP("192.0.2.2"), .allowed, "IPv4 addresses are limited one by one")
        XCTAssertEqual(limits.ipBucket("2001:db8:aa:bb:1:2:3:4"), "2001:db8:aa:bb:0:0:0:0/64")
        XCTAssertEqual(limits.ipBucket("::ffff:192.0.2.7"), "192.0.2.7", "an IPv4-mapped peer keeps its own key, its IPv4 one")
        XCTAssertEqual(limits.ipBucket("not an address"), "not an address")

        configuration.ipv6Prefix = 48
        let wider = RateLimits(configuration: configuration, clock: { 0 })
        XCTAssertEqual(wider.ipBucket("2001:db8:aa:bb:1:2:3:4"), "2001:db8:aa:0:0:0:0:0/48")
        configuration.ipv6Prefix = 128
        XCTAssertEqual(RateLimits(configuration: configuration).ipBucket("2001:db8::9"), "2001:db8:0:0:0:0:0:9/128")
    }

    func test_methodClasses() {
        XCTAssertEqual(RateLimitClass(nsid: "blue.catbird.mls.sendMessage"), .send)
        XCTAssertEqual(RateLimitClass(nsid: "blue.catbird.mls.getMessages"), .read)
        XCTAssertEqual(RateLimitClass(nsid: "blue.catbird.mls.getConvos"), .read)
        XCTAssertEqual(RateLimitClass(nsid: "blue.catbird.mls.publishKeyPackages"), .keyPackages)
        XCTAssertEqual(RateLimitClass(nsid: "blue.catbird.mls.getKeyPackages"), .keyPackages)
        for name in ["createConvo", "addMembers", "removeMember", "commitGroupChange", "leaveConvo",
                     "processExternalCommit", "updateGroupInfo"] {
            XCTAssertEqual(RateLimitClass(nsid: "blue.catbird.mls." + name), .membership, name)
        }
        XCTAssertEqual(RateLimitClass(nsid: "blue.catbird.mls.registerDeviceToken"), .pushRegistration)
        XCTAssertEqual(RateLimitClass(nsid: "blue.catbird.chat.sendMessage"), .send)
        XCTAssertEqual(RateLimitClass(nsid: "blue.catbird.chat.getEntries"), .read)
        XCTAssertEqual(RateLimitClass(nsid: "blue.catbird.chat.enrollDevice"), .keyPackages)
        XCTAssertEqual(RateLimitClass(nsid: "blue.catbird.chat.submitTransition"), .membership)
    }

    /// The budget of DID document fetches is the address's bucket too: rotating through a /64 does
    /// not buy fresh fetches.
    func test_didResolutionBudget_isSharedByAnIPv6Network() {
        var configuration = RateLimitConfiguration()
        configuration.perIPResolution = RateLimitRule(ratePerSecond: 0.001, burst: 2)
        let limits = RateLimits(configuration: configuration, clock: { 0 })
        let rotated = (1...5).map { "2001:db8:aa:bb::\($0)" }
        XCTAssertEqual(rotated.map(limits.checkDIDResolution),
                       Array(repeating: .allowed, count: 2) + Array(repeating: .limited(retryAfter: 1000), count: 3))
        XCTAssertEqual(limits.checkDIDResolution("2001:db8:aa:bc::1"), .allowed, "the next /64 has its own budget")
        XCTAssertEqual(limits.checkDIDResolution("192.0.2.1"), .allowed)
        XCTAssertEqual(limits.checkDIDResolution("192.0.2.2"), .allowed, "IPv4 addresses one by one")
    }

    // MARK: Addresses and proxies

    func test_cidrMatching() throws {
        let net = try XCTUnwrap(IPNetwork("10.1.0.0/16"))
        XCTAssertTrue(net.contains(try XCTUnwrap(IPAddress("10.1.255.7"))))
        XCTAssertFalse(net.contains(try XCTUnwrap(IPAddress("10.2.0.1"))))
        XCTAssertFalse(net.contains(try XCTUnwrap(IPAddress("::a01:1"))), "IPv4 blocks never match native IPv6")
        let v6 = try XCTUnwrap(IPNetwork("fd00::/8"))
        XCTAssertTrue(v6.contains(try XCTUnwrap(IPAddress("fdab::1"))))
        XCTAssertFalse(v6.contains(try XCTUnwrap(IPAddress("fe80::1"))))
        XCTAssertTrue(try XCTUnwrap(IPNetwork("0.0.0.0/0")).contains(try XCTUnwrap(IPAddress("8.8.8.8"))))
        XCTAssertTrue(try XCTUnwrap(IPNetwork("127.0.0.1")).contains(try XCTUnwrap(IPAddress("127.0.0.1"))))
        XCTAssertFalse(try XCTUnwrap(IPNetwork("127.0.0.1")).contains(try XCTUnwrap(IPAddress("127.0.0.2"))))
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "/8", "x/8", "10.0.0.0/1a"] {
            XCTAssertNil(IPNetwork(Substring(bad)), bad)
        }
        XCTAssertThrowsError(try TrustedProxies(parsing: "10.0.0.0/8,bogus"))
        XCTAssertEqual(try TrustedProxies(parsing: " , ").networks.count, 0)
    }

    func test_clientAddress_ignoresForwardedForFromUntrustedPeers() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8")
        XCTAssertEqual(proxies.clientAddress(peer: "198.51.100.7", forwardedFor: ["203.0.113.9"]), "198.51.100.7")
        XCTAssertEqual(TrustedProxies().clientAddress(peer: "10.0.0.1", forwardedFor: ["203.0.113.9"]), "10.0.0.1")
    }

    func test_clientAddress_takesRightMostUntrustedBehindTrustedProxies() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8,192.168.0.0/16")
        // The client forged "1.1.1.1"; the outer proxy saw it come from 203.0.113.9.
        XCTAssertEqual(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["1.1.1.1, 203.0.113.9, 192.168.1.1"]),
                       "203.0.113.9")
        // Several header lines are one list, in order.
        XCTAssertEqual(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["1.1.1.1", "203.0.113.9"]), "203.0.113.9")
        // Every hop trusted: the left-most one is the best we know.
        XCTAssertEqual(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["192.168.4.4, 10.9.9.9"]), "192.168.4.4")
        // No header: the proxy itself.
        XCTAssertEqual(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: []), "10.0.0.2")
        // A malformed entry stops the walk at the trusted hop that passed it on.
        XCTAssertEqual(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["203.0.113.9, garbage, 10.3.3.3"]), "10.3.3.3")
        XCTAssertEqual(proxies.clientAddress(peer: "10.0.0.2", forwardedFor: ["[2001:db8::7]:5000"]), "2001:db8:0:0:0:0:0:7")
    }
}
