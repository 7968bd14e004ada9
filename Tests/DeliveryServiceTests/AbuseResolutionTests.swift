import Dispatch
import Foundation
import HTTP
import TestSupport
import XCTest

/// Issue 14, item 1: tokens whose DID documents must be fetched cannot starve the users whose keys
/// the service holds, cannot make the service fetch one document twice at once, and cannot turn it
/// into an amplifier against the PLC directory. Each test is the attack against the real server.
final class AbuseResolutionTests: XCTestCase {
    static let getConvos = "blue.catbird.mls.getConvos"
    let getConvos = AbuseResolutionTests.getConvos

    /// A token for a DID nobody published: the service must fetch its document to judge it.
    static func junkToken() -> String {
        "Bearer " + TestIdentity().token(audience: ServiceHarness.serviceDID, nsid: getConvos)
    }

    func junkToken() -> String { Self.junkToken() }

    static let notFound = Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)

    /// The attack of the issue: about a hundred tokens for random did:plc values whose documents the
    /// directory sends only after 20 s, all at once, while a known user keeps calling getConvos.
    ///
    /// The one time bound in the tests, because the issue states it: every call of the known user
    /// finishes within 1 s. That is generous: such a call takes milliseconds, while the failure it
    /// guards against costs at least one resolution timeout (3 s) per call, as a worker waits for a
    /// junk token's document before it can take the next request (before the fix: 7.9 s).
    func test_stalledDirectory_junkTokens_doNotSlowAKnownUser() throws {
        // The junk comes from many addresses, as a botnet's would: from one, MAX_CONNECTIONS_PER_IP
        // and RATE_LIMIT_DID_RESOLUTION would stop most of it before any fetch.
        let service = try ServiceHarness(environment: ["RATE_LIMIT_DID_RESOLUTION": "off", "MAX_CONNECTIONS_PER_IP": "0"])
        defer { service.shutdown() }
        service.plc.setFallback(.delayed(20, Self.notFound))
        let alice = service.makeUser()
        XCTAssertEqual(try service.call(getConvos, as: alice).status, 200, "alice's key is now cached")

        let junkStatuses = Locked<[Int]>([])
        let attackDone = Locked(false)
        let url = service.baseURL + "/xrpc/" + getConvos
        Thread {
            runOnThreads(100) { _ in
                let client = HTTPClient(timeout: 60, allowPrivateAddresses: true)
                let status = (try? client.send(method: "GET", url, headers: [("Authorization", Self.junkToken())]).status) ?? -1
                junkStatuses.withLock { $0.append(status) }
            }
            attackDone.withLock { $0 = true }
        }.start()
        // The attack is under way once the directory holds as many fetches as the resolver allows it.
        for _ in 0..<1000 where service.plc.totalRequests < 8 { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertGreaterThanOrEqual(service.plc.totalRequests, 8)

        var latencies: [Double] = []
        while !attackDone.value || latencies.count < 10 {
            let start = DispatchTime.now().uptimeNanoseconds
            XCTAssertEqual(try service.call(getConvos, as: alice).status, 200)
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            // 20 calls a second: a busy client, inside RATE_LIMIT_READ.
            Thread.sleep(forTimeInterval: 0.05)
            if latencies.count >= 1000 { break }
        }
        for _ in 0..<6000 where !attackDone.value { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertTrue(attackDone.value, "every junk request was answered")
        XCTAssertLessThan(latencies.max() ?? 0, 1, "known user's calls during the attack: \(latencies.count), "
                          + String(format: "slowest %.3f s", latencies.max() ?? 0))
        // Every junk token is refused: 401 when its fetch timed out after 3 s (never the directory's
        // 20 s), 503 with Retry-After when it waited for a free fetch slot longer than that.
        let statuses = junkStatuses.value
        XCTAssertEqual(statuses.count, 100)
        XCTAssertTrue(statuses.allSatisfy { $0 == 401 || $0 == 503 }, "\(statuses)")
        XCTAssertLessThanOrEqual(service.plc.totalRequests, 101, "one fetch per junk DID at most")
        print("stalled directory: \(latencies.count) known-user calls, slowest "
              + String(format: "%.1f ms", (latencies.max() ?? 0) * 1000)
              + "; junk answered \(statuses.filter { $0 == 401 }.count)× 401, \(statuses.filter { $0 == 503 }.count)× 503")
    }

    /// Many requests at once for one DID the service has not seen: one fetch, every request served.
    func test_singleFlight_concurrentRequestsForOneUnknownDID_fetchItOnce() throws {
        let service = try ServiceHarness()
        defer { service.shutdown() }
        let bob = TestIdentity()
        let gate = LoopbackHTTPServer.Gate()
        service.plc.set("/\(bob.did)", .gated(gate, LoopbackHTTPServer.jsonResponse(bob.didDocument)))
        let statuses = Locked<[Int]>([])
        let sent = DispatchGroup()
        let finished = DispatchSemaphore(value: 0)
        let port = UInt16(service.app.port)
        for _ in 0..<30 { sent.enter() }
        Thread {
            runOnThreads(30) { _ in
                let status = (try? Self.exchange(port: port, nsid: Self.getConvos, authorization:
                    "Bearer " + bob.token(audience: ServiceHarness.serviceDID, nsid: Self.getConvos)) { sent.leave() }) ?? -1
                statuses.withLock { $0.append(status) }
            }
            finished.signal()
        }.start()
        XCTAssertEqual(sent.wait(timeout: .now() + 30), .success)
        for _ in 0..<1000 where gate.waitingCount == 0 { Thread.sleep(forTimeInterval: 0.01) }
        gate.open()
        XCTAssertEqual(finished.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(statuses.value, Array(repeating: 200, count: 30))
        XCTAssertEqual(service.plc.requestCount("/\(bob.did)"), 1, "thirty requests, one fetch")
    }

    /// A DID the directory does not know is remembered for two minutes, one it could not be asked
    /// about for ten seconds: repeating the token costs no further fetch.
    func test_negativeCache_repeatedJunkCostsOneFetch() throws {
        let service = try ServiceHarness()
        defer { service.shutdown() }
        let unknown = TestIdentity()
        for _ in 0..<20 {
            let reply = try service.call(getConvos, headers: [("Authorization", "Bearer " + unknown.token(audience: ServiceHarness.serviceDID, nsid: getConvos))])
            XCTAssertEqual(reply.status, 401)
            XCTAssertEqual(reply.error, "BadJwtSignature")
        }
        XCTAssertEqual(service.plc.requestCount("/\(unknown.did)"), 1)

        let flaky = TestIdentity()
        service.plc.set("/\(flaky.did)", .raw(Array("HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n".utf8)))
        for _ in 0..<20 {
            let reply = try service.call(getConvos, headers: [("Authorization", "Bearer " + flaky.token(audience: ServiceHarness.serviceDID, nsid: getConvos))])
            XCTAssertEqual(reply.status, 401)
            // What went wrong on the way to the directory is the operator's business, not the caller's.
            XCTAssertFalse(String(decoding: reply.body, as: UTF8.self).contains("500"), String(decoding: reply.body, as: UTF8.self))
        }
        XCTAssertEqual(service.plc.requestCount("/\(flaky.did)"), 1, "a transient failure is remembered too, briefly")
    }

    /// Random DIDs from one address: only `RATE_LIMIT_DID_RESOLUTION`'s burst reaches the directory;
    /// the rest are 429 before any fetch. Known users and other addresses are unaffected.
    func test_perIPBudget_forDIDsTheServiceHasNotSeen() throws {
        let service = try ServiceHarness(environment: ["RATE_LIMIT_DID_RESOLUTION": "0.001,5", "TRUSTED_PROXIES": "127.0.0.1/32"])
        defer { service.shutdown() }
        let alice = service.makeUser()
        XCTAssertEqual(try service.call(getConvos, as: alice).status, 200, "alice's key now cached (one of the five)")
        var statuses: [Int] = []
        for _ in 0..<10 {
            let reply = try service.call(getConvos, headers: [("Authorization", junkToken())])
            statuses.append(reply.status)
            if reply.status == 429 {
                XCTAssertEqual(reply.error, "RateLimitExceeded")
                XCTAssertNotNil(reply.header("Retry-After"))
            }
        }
        XCTAssertEqual(statuses, Array(repeating: 401, count: 4) + Array(repeating: 429, count: 6))
        XCTAssertEqual(service.plc.totalRequests, 5, "alice's document and four junk ones")
        XCTAssertEqual(service.app.metrics.rateLimitedCount(scope: "did_resolution"), 6)
        // A user whose key is cached spends nothing from the budget.
        for _ in 0..<5 { XCTAssertEqual(try service.call(getConvos, as: alice).status, 200) }
        // Another client (behind the trusted proxy) has its own budget.
        let other = try service.call(getConvos, headers: [("Authorization", junkToken()), ("X-Forwarded-For", "203.0.113.9")])
        XCTAssertEqual(other.status, 401)
        XCTAssertEqual(service.plc.totalRequests, 6)
    }

    /// One request over its own connection: writes it, calls `sent`, reads the status.
    static func exchange(port: UInt16, nsid: String, authorization: String, sent: () -> Void) throws -> Int {
        let connection = try RawConnection(port: port)
        defer { connection.close() }
        guard connection.send("GET /xrpc/\(nsid) HTTP/1.1\r\nHost: mls.test\r\nAuthorization: \(authorization)\r\nConnection: close\r\n\r\n") else {
            sent()
            return -1
        }
        sent()
        let response = connection.readAll()
        let statusLine = response.split(separator: "\r\n").first ?? ""
        return Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
}
