import TestSupport
import XCTest
@testable import HTTP

/// The client against the loopback server: framing, redirects, caps, timeout and the SSRF guard.
final class HTTPClientTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private let client = HTTPClient(timeout: 3, maxBodySize: 64 * 1024, allowPrivateAddresses: true)

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
    }

    override func tearDown() {
        server.stop()
    }

    func testContentLengthResponse() throws {
        server.setJSON("/doc", "{\"id\":\"did:web:example.com\"}")
        let response = try client.get("\(server.baseURL)/doc")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "{\"id\":\"did:web:example.com\"}")
        let head = try XCTUnwrap(server.receivedHeads.first)
        XCTAssertTrue(head.hasPrefix("GET /doc HTTP/1.1\r\n"))
        XCTAssertTrue(head.contains("\r\nHost: 127.0.0.1:\(server.port)\r\n"))
        XCTAssertTrue(head.contains("\r\nConnection: close\r\n"))
    }

    func testChunkedResponse() throws {
        let body = String(repeating: "0123456789abcdef", count: 1000)
        var raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        var rest = Substring(body)
        while !rest.isEmpty {
            let chunk = rest.prefix(3000)
            raw += String(chunk.count, radix: 16) + "\r\n" + chunk + "\r\n"
            rest = rest.dropFirst(chunk.count)
        }
        raw += "0\r\n\r\n"
        server.set("/chunked", .raw(Array(raw.utf8)))
        let response = try client.get("\(server.baseURL)/chunked")
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), body)
    }

    func testNotFoundIsReturned() throws {
        XCTAssertEqual(try client.get("\(server.baseURL)/missing").status, 404)
    }

    func testRedirectIsNotFollowed() throws {
        server.set("/moved", .raw(Array("HTTP/1.1 302 Found\r\nLocation: /target\r\nContent-Length: 0\r\n\r\n".utf8)))
        server.setJSON("/target", "{}")
        XCTAssertThrowsError(try client.get("\(server.baseURL)/moved")) {
            XCTAssertEqual($0 as? HTTPClientError, .redirectRefused(status: 302))
        }
        XCTAssertEqual(server.requestCount("/target"), 0)
    }

    func testOversizedBodyIsRefused() throws {
        server.setJSON("/big", "\"" + String(repeating: "x", count: 70_000) + "\"")
        XCTAssertThrowsError(try client.get("\(server.baseURL)/big")) {
            XCTAssertEqual($0 as? HTTPClientError, .responseTooLarge)
        }
        let unframed = "HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "y", count: 70_000)
        server.set("/unframed", .raw(Array(unframed.utf8)))
        XCTAssertThrowsError(try client.get("\(server.baseURL)/unframed")) {
            XCTAssertEqual($0 as? HTTPClientError, .responseTooLarge)
        }
    }

    func testTimeout() throws {
        server.set("/hang", .hang)
        let impatient = HTTPClient(timeout: 0.3, allowPrivateAddresses: true)
        XCTAssertThrowsError(try impatient.get("\(server.baseURL)/hang")) {
            XCTAssertEqual($0 as? HTTPClientError, .timeout)
        }
        XCTAssertEqual(server.requestCount("/hang"), 1)
    }

    func testSSRFGuardRefusesNonPublicTargets() throws {
        server.setJSON("/doc", "{}")
        let guarded = HTTPClient(timeout: 3)
        for url in ["\(server.baseURL)/doc", "http://localhost:\(server.port)/doc", "http://10.0.0.1/",
                    "http://169.254.169.254/latest/meta-data/", "http://[::1]:\(server.port)/doc", "https://192.168.0.1/",
                    "http://0.0.0.0:\(server.port)/doc", "http://2130706433:\(server.port)/doc", "http://0x7f.1:\(server.port)/doc"] {
            XCTAssertThrowsError(try guarded.get(url), url) { error in
                guard case .forbiddenAddress? = error as? HTTPClientError else {
                    return XCTFail("\(url): expected forbiddenAddress, got \(error)")
                }
            }
        }
        XCTAssertEqual(server.totalRequests, 0, "no connection may reach a refused address")
    }

    func testTLSHandshakeWithPlainServerFails() throws {
        server.setJSON("/doc", "{}")
        XCTAssertThrowsError(try client.get("https://127.0.0.1:\(server.port)/doc")) { error in
            guard case .tls? = error as? HTTPClientError else { return XCTFail("expected a TLS failure, got \(error)") }
        }
        XCTAssertEqual(server.requestCount("<tls>"), 1, "the ClientHello reached the server")
    }

    func testUnknownHost() {
        XCTAssertThrowsError(try client.get("http://does-not-exist.invalid/")) {
            XCTAssertEqual($0 as? HTTPClientError, .hostNotFound("does-not-exist.invalid"))
        }
    }

    func testConnectionRefused() throws {
        server.stop()
        XCTAssertThrowsError(try client.get("\(server.baseURL)/")) { error in
            guard case .connectFailed? = error as? HTTPClientError else { return XCTFail("got \(error)") }
        }
    }
}
