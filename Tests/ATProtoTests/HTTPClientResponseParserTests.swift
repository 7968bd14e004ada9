import XCTest
@testable import HTTP

final class HTTPClientResponseParserTests: XCTestCase {
    private func parse(_ text: String, maxBodySize: Int = 1 << 20, byteByByte: Bool = false) throws -> HTTPClientResponse {
        var parser = HTTPClientResponseParser(maxBodySize: maxBodySize)
        let bytes = Array(text.utf8)
        if byteByByte {
            for byte in bytes {
                if let response = try parser.feed([byte]) { return response }
            }
        } else if let response = try parser.feed(bytes) {
            return response
        }
        return try parser.finish()
    }

    private func assertFails(_ text: String, _ expected: HTTPClientError? = nil, maxBodySize: Int = 1 << 20,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(text, maxBodySize: maxBodySize), text, file: file, line: line) { error in
            guard let expected else { return }
            XCTAssertEqual(error as? HTTPClientError, expected, file: file, line: line)
        }
    }

    func testContentLength() throws {
        for byteByByte in [false, true] {
            let response = try parse("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}", byteByByte: byteByByte)
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.body, Array("{\"a\":1}".utf8))
            XCTAssertEqual(response.header("content-type"), "application/json")
        }
    }

    func testChunked() throws {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\n6\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nX-Trailer: yes\r\n\r\n"
        for byteByByte in [false, true] {
            let response = try parse(text, byteByByte: byteByByte)
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "Wikipedia in \r\n\r\nchunks.")
        }
    }

    func testReadUntilClose() throws {
        let response = try parse("HTTP/1.0 404 Not Found\r\n\r\nnothing here")
        XCTAssertEqual(response.status, 404)
        XCTAssertEqual(response.body, Array("nothing here".utf8))
    }

    func testNoBodyStatuses() throws {
        XCTAssertEqual(try parse("HTTP/1.1 204 No Content\r\n\r\n").body, [])
        XCTAssertEqual(try parse("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").body, [])
    }

    func testRedirectsAreRefused() {
        for status in [301, 302, 303, 307, 308] {
            assertFails("HTTP/1.1 \(status) Moved\r\nLocation: http://169.254.169.254/\r\nContent-Length: 0\r\n\r\n",
                        .redirectRefused(status: status))
        }
    }

    func testSizeCaps() {
        assertFails("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world", .responseTooLarge, maxBodySize: 10)
        assertFails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n", .responseTooLarge, maxBodySize: 10)
        assertFails("HTTP/1.1 200 OK\r\n\r\nhello world", .responseTooLarge, maxBodySize: 10)
        assertFails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n", .responseTooLarge)
        assertFails("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 20_000) + "\r\n\r\n")
        assertFails("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 20_000))
    }

    func testFramingAttacks() {
        assertFails("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        assertFails("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd")
        assertFails("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n")
        assertFails("HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n")
        assertFails("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n")
        assertFails("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")
        assertFails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n")
        assertFails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
        assertFails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "1", count: 2000))
    }

    func testMalformedHeads() {
        for head in [
            "HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n", "HTTP/1.1 abc OK\r\n\r\n",
            "HTTP/1.1 200OK\r\n\r\n", "ICY 200 OK\r\n\r\n", "HTTP/1.1 099 X\r\n\r\n", "HTTP/1.1 100 Continue\r\n\r\n",
            "HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n", "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
            "HTTP/1.1 200 OK\r\n: empty\r\n\r\n", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", "HTTP/1.1 200 OK\r\nX: a\u{1}b\r\n\r\n",
        ] {
            assertFails(head)
        }
    }

    func testTruncatedResponses() {
        let full = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789"
        for cut in 0..<full.utf8.count {
            assertFails(String(decoding: full.utf8.prefix(cut), as: UTF8.self))
        }
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        for cut in 0..<chunked.utf8.count {
            assertFails(String(decoding: chunked.utf8.prefix(cut), as: UTF8.self))
        }
    }
}
