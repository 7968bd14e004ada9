import Foundation
import HTTP
import TestSupport
import XCTest

/// Rate limits against the running service, each test with its own tight limits. Refill rates are
/// so slow (one token per 1000 s) that no test depends on how fast it runs.
final class RateLimitServiceTests: XCTestCase {
    let getConvos = "blue.catbird.mls.getConvos"

    func test_floodFromOneDID_gets429_whileAnotherDIDIsServed() throws {
        let service = try ServiceHarness(environment: ["RATE_LIMIT_READ": "0.001,5", "RATE_LIMIT_IP": "off"])
        defer { service.shutdown() }
        let alice = service.makeUser(), bob = service.makeUser()
        var statuses: [Int] = []
        var retryAfter: [String?] = []
        for _ in 0..<12 {
            let reply = try service.call(getConvos, as: alice)
            statuses.append(reply.status)
            if reply.status == 429 {
                retryAfter.append(reply.header("Retry-After"))
                XCTAssertEqual(reply.error, "RateLimitExceeded")
            }
        }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 5) + Array(repeating: 429, count: 7))
        for value in retryAfter {
            let seconds = try XCTUnwrap(Int(try XCTUnwrap(value)))
            XCTAssertGreaterThanOrEqual(seconds, 1)
        }
        XCTAssertEqual(try service.call(getConvos, as: bob).status, 200)
        // Another class keeps its own budget: getKeyPackages counts against keyPackages, not read.
        XCTAssertEqual(try service.call("blue.catbird.mls.getKeyPackages", as: alice,
                                        query: [("dids", bob.did.rawValue)]).status, 200)
        XCTAssertEqual(service.app.metrics.rateLimitedCount(scope: "read"), 7)
    }

    func test_ipLimit_refusesBeforeAuthentication() throws {
        let service = try ServiceHarness(environment: ["RATE_LIMIT_IP": "0.001,3"])
        defer { service.shutdown() }
        var statuses: [Int] = []
        for _ in 0..<10 {
            // Well-formed tokens from DIDs the directory does not know: verifying one costs a PLC lookup.
            let stranger = TestIdentity()
            statuses.append(try service.call(getConvos, headers: [
                ("Authorization", "Bearer " + stranger.token(audience: ServiceHarness.serviceDID, nsid: getConvos)),
            ]).status)
        }
        XCTAssertEqual(statuses, Array(repeating: 401, count: 3) + Array(repeating: 429, count: 7))
        XCTAssertEqual(service.plc.totalRequests, 3, "only the requests inside the IP budget reached DID resolution")
        XCTAssertEqual(service.app.metrics.rateLimitedCount(scope: "ip"), 7)
        // Garbage tokens are refused just the same once the address is over budget.
        XCTAssertEqual(try service.call(getConvos, headers: [("Authorization", "Bearer garbage")]).status, 429)
    }

    func test_forwardedFor_isHonouredOnlyFromTrustedProxies() throws {
        let service = try ServiceHarness(environment: ["RATE_LIMIT_IP": "0.001,2", "TRUSTED_PROXIES": "127.0.0.1/32"])
        defer { service.shutdown() }
        func status(forwardedFor: String) throws -> Int {
            try service.call("blue.catbird.mls.noSuchMethod", headers: [("X-Forwarded-For", forwardedFor)]).status
        }
        // The test client is the trusted proxy; each forwarded client has its own bucket.
        XCTAssertEqual(try (0..<3).map { _ in try status(forwardedFor: "203.0.113.1") }, [404, 404, 429])
        XCTAssertEqual(try status(forwardedFor: "203.0.113.2"), 404)
        // A forged left-most entry does not escape the bucket of the address the proxy saw.
        XCTAssertEqual(try status(forwardedFor: "198.51.100.99, 203.0.113.1"), 429)

        // An IPv6 client behind the proxy gains nothing by rotating through its /64 (issue 14).
        let rotating = try (1...6).map { index in try status(forwardedFor: "2001:db8:77:1:\(index):\(index * 31):0:\(index)") }
        XCTAssertEqual(rotating, [404, 404, 429, 429, 429, 429])
        XCTAssertEqual(try status(forwardedFor: "2001:db8:77:2::1"), 404, "a neighbouring /64 has its own budget")

        let untrusted = try ServiceHarness(environment: ["RATE_LIMIT_IP": "0.001,2", "TRUSTED_PROXIES": "10.0.0.0/8"])
        defer { untrusted.shutdown() }
        let replies = try (0..<3).map { index in
            try untrusted.call("blue.catbird.mls.noSuchMethod", headers: [("X-Forwarded-For", "203.0.113.\(index)")]).status
        }
        XCTAssertEqual(replies, [404, 404, 429], "from an untrusted peer the header is ignored: one bucket for 127.0.0.1")
    }
}
