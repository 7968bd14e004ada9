import ATProto
import Foundation
import HTTP
import TestSupport
import XCTest

/// Issue 14, item 7: connections and workers. Each test is the attack against the real server:
/// slow uploads, one address holding every connection, `_health` floods, large bodies sent with a
/// bad token.
final class AbuseTransportTests: XCTestCase {
    static let createConvo = "blue.catbird.mls.createConvo"
    static let getConvos = "blue.catbird.mls.getConvos"

    /// Waits (bounded) for `condition`; the test fails if it never holds.
    func waitUntil(_ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
        for _ in 0..<2000 where !condition() { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertTrue(condition(), "never: \(what)", file: file, line: line)
    }

    /// The head of a 1 MiB createConvo for `user` and its first body byte: the server dispatches it
    /// from the head (its body is large) and a worker waits for the rest.
    func startUpload(_ service: ServiceHarness, as user: TestIdentity) throws -> RawConnection {
        let connection = try RawConnection(port: UInt16(service.app.port))
        let token = user.token(audience: ServiceHarness.serviceDID, nsid: Self.createConvo)
        XCTAssertTrue(connection.send("POST /xrpc/\(Self.createConvo) HTTP/1.1\r\nHost: mls.test\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(1 << 20)\r\n\r\n{"))
        return connection
    }

    /// Slow-drip uploads: each user holds at most MAX_UPLOADS_PER_USER workers, all of them together
    /// at most MAX_UPLOADS (half the workers), so other users are still served; and every drip is
    /// cut (408) once it falls below BODY_MIN_RATE after its grace, though each byte arrives well
    /// within BODY_READ_TIMEOUT of the last.
    func test_slowUploads_areCapped_andCutAtTheMinimumRate_whileOthersAreServed() throws {
        let service = try ServiceHarness(environment: ["WORKER_THREADS": "8", "BODY_READ_TIMEOUT": "2", "BODY_MIN_RATE": "1000",
                                                       "MAX_UPLOADS_PER_USER": "2"])
        defer { service.shutdown() }
        XCTAssertEqual(service.configuration.limits.maxUploads, 4, "half the workers")
        let a = service.makeUser(), b = service.makeUser(), c = service.makeUser(), known = service.makeUser()
        for user in [a, b, c, known] { XCTAssertEqual(try service.call(Self.getConvos, as: user).status, 200) }

        var dripping: [RawConnection] = []
        for (index, user) in [a, a, b, b].enumerated() {
            dripping.append(try startUpload(service, as: user))
            waitUntil("upload \(index + 1) holds a worker") { service.app.uploadsInProgress == index + 1 }
        }
        // A third upload of a: refused at once, whatever the others do.
        let third = try startUpload(service, as: a)
        XCTAssertTrue(third.readAll(timeout: 10).hasPrefix("HTTP/1.1 429 "))
        // c's first: every upload slot is taken.
        let overall = try startUpload(service, as: c)
        let refusal = overall.readAll(timeout: 10)
        XCTAssertTrue(refusal.hasPrefix("HTTP/1.1 503 "), refusal)
        XCTAssertTrue(refusal.contains("Retry-After: 1"), refusal)
        XCTAssertEqual(service.app.metrics.rateLimitedCount(scope: "uploads"), 2)

        // Four workers of eight wait on drips; another user is served meanwhile.
        for _ in 0..<10 { XCTAssertEqual(try service.call(Self.getConvos, as: known).status, 200) }

        // A byte every 100 ms: 10 B/s against a minimum of 1000 B/s after 2 s of grace.
        var statuses: [Int?] = Array(repeating: nil, count: dripping.count)
        var drips = 0
        while statuses.contains(where: { $0 == nil }), drips < 300 {
            Thread.sleep(forTimeInterval: 0.1)
            drips += 1
            for (index, connection) in dripping.enumerated() where statuses[index] == nil {
                _ = connection.send("a")
                if connection.poll() { statuses[index] = connection.receivedStatus ?? -1 }
            }
        }
        XCTAssertEqual(statuses, [408, 408, 408, 408], "cut with 408 RequestTimeout")
        XCTAssertLessThan(drips, 100, "cut after about 2 s of dripping, not at BODY_STREAM_TIMEOUT")
        waitUntil("the workers are free again") { service.app.uploadsInProgress == 0 }
        XCTAssertEqual(try service.call(Self.getConvos, as: a).status, 200)
    }

    /// MAX_CONNECTIONS_PER_IP defaults to 64: the 65th connection from one address is answered 503
    /// and closed, while other addresses connect as usual.
    func test_perIPConnectionLimit_hasADefault() throws {
        let service = try ServiceHarness()
        defer { service.shutdown() }
        XCTAssertEqual(service.configuration.http.maxConnectionsPerIP, 64)
        let port = UInt16(service.app.port)
        var held = try (0..<64).map { _ in try RawConnection(port: port) }
        defer { held.forEach { $0.close() } }
        waitUntil("64 connections open") { service.app.connectionCount == 64 }
        let extra = try RawConnection(port: port)
        let answer = extra.readAll(timeout: 10)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 503 "), answer)
        XCTAssertTrue(answer.contains("too many connections"), answer)

        // Another address of the loopback network is another client.
        let other = try RawConnection(port: port, from: "127.0.0.2")
        XCTAssertTrue(other.send("GET /xrpc/_health HTTP/1.1\r\nHost: mls.test\r\nConnection: close\r\n\r\n"))
        XCTAssertTrue(other.readAll(timeout: 10).hasPrefix("HTTP/1.1 200 "))

        // A slot freed is a slot for the address again.
        held.removeFirst().close()
        waitUntil("a connection closed") { service.app.connectionCount == 63 }
        let again = try RawConnection(port: port)
        XCTAssertTrue(again.send("GET /xrpc/_health HTTP/1.1\r\nHost: mls.test\r\nConnection: close\r\n\r\n"))
        XCTAssertTrue(again.readAll(timeout: 10).hasPrefix("HTTP/1.1 200 "))
    }

    /// `_health` (and the other plain routes) spend the address's RATE_LIMIT_IP tokens like any request.
    func test_health_isBehindThePerIPLimit() throws {
        let service = try ServiceHarness(environment: ["RATE_LIMIT_IP": "0.001,3"])
        defer { service.shutdown() }
        let statuses = try (0..<5).map { _ in try service.get(path: "/xrpc/_health").status }
        XCTAssertEqual(statuses, [200, 200, 200, 429, 429])
        let wellKnown = try service.get(path: "/.well-known/did.json")
        XCTAssertEqual(wellKnown.status, 429)
        XCTAssertEqual(wellKnown.error, "RateLimitExceeded")
        XCTAssertNotNil(wellKnown.header("Retry-After"))
        XCTAssertEqual(service.app.metrics.rateLimitedCount(scope: "ip"), 3)
    }

    /// A 16 MiB createConvo with a missing, malformed or expired token, or one whose signature does
    /// not verify: the 401 comes back, and the connection is closed, after the head alone — not
    /// one body byte was sent.
    func test_largeBodyWithABadToken_isRefusedFromTheHead_beforeAnyBodyByte() throws {
        let service = try ServiceHarness()
        defer { service.shutdown() }
        let alice = service.makeUser()
        let forger = TestIdentity()
        let forged = try ServiceAuthTokenForgery.token(claiming: alice, signedBy: forger, nsid: Self.createConvo)
        let expired = alice.token(audience: ServiceHarness.serviceDID, nsid: Self.createConvo, expiresIn: -3600)
        let cases: [(String?, String)] = [(nil, "AuthenticationRequired"), ("Bearer garbage", "BadJwt"),
                                          ("Bearer " + expired, "JwtExpired"), ("Bearer " + forged, "BadJwtSignature")]
        for framing in ["Content-Length: \(16 << 20)", "Transfer-Encoding: chunked"] {
            for (authorization, error) in cases {
                let connection = try RawConnection(port: UInt16(service.app.port))
                defer { connection.close() }
                let header = authorization.map { "Authorization: \($0)\r\n" } ?? ""
                XCTAssertTrue(connection.send("POST /xrpc/\(Self.createConvo) HTTP/1.1\r\nHost: mls.test\r\n\(header)"
                    + "Content-Type: application/json\r\n\(framing)\r\n\r\n"))
                // Nothing more is sent: the answer and the close come from the head alone.
                let answer = connection.readAll(timeout: 10)
                XCTAssertTrue(answer.hasPrefix("HTTP/1.1 401 "), "\(framing), \(error): \(answer)")
                XCTAssertTrue(answer.contains("\"error\":\"\(error)\""), answer)
                XCTAssertTrue(answer.lowercased().contains("connection: close"), answer)
            }
        }
        XCTAssertEqual(service.plc.requestCount("/\(alice.did)"), 1, "alice's document, fetched once for the forged tokens")
        // With a good token the large body is read, and judged.
        let connection = try RawConnection(port: UInt16(service.app.port))
        defer { connection.close() }
        let body = Array("{\"groupId\":\"".utf8) + Array(repeating: UInt8(ascii: "a"), count: 100 << 10) + Array("\"}".utf8)
        let token = alice.token(audience: ServiceHarness.serviceDID, nsid: Self.createConvo)
        XCTAssertTrue(connection.send("POST /xrpc/\(Self.createConvo) HTTP/1.1\r\nHost: mls.test\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"))
        XCTAssertTrue(connection.send(bytes: body))
        let answer = connection.readAll(timeout: 10)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 400 "), answer)
        XCTAssertTrue(answer.contains("InvalidRequest"), answer)
    }
}

/// A token naming `user` as issuer but signed by another key: it reaches the signature check.
enum ServiceAuthTokenForgery {
    static func token(claiming user: TestIdentity, signedBy forger: TestIdentity, nsid: String) throws -> String {
        try ServiceAuthToken.mint(issuer: user.did, audience: ServiceHarness.serviceDID, lexiconMethod: nsid, key: forger.key)
    }
}
