import XCTest
@testable import HTTP

final class HTTPRequestParserTests: XCTestCase {
    private func parse(_ text: String, feedSize: Int = .max, maxHeaderBytes: Int = 16_384, maxBodySize: Int = 1 << 20)
        throws(HTTPParserError) -> (requests: [HTTPRequest], unconsumed: Int) {
        try HTTPRequestParser.parseMessages(Array(text.utf8), feedSize: feedSize, maxHeaderBytes: maxHeaderBytes, maxBodySize: maxBodySize)
    }

    private func assertRejects(_ text: String, _ expected: HTTPParserError, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(text), file: file, line: line) { error in
            XCTAssertEqual(error as? HTTPParserError, expected, file: file, line: line)
        }
    }

    // MARK: Well-formed requests

    func testSimpleGet_IsParsed() throws {
        let result = try parse("GET /xrpc/blue.catbird.mls.getGroup?convoId=abc&x=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n")
        XCTAssertEqual(result.requests.count, 1)
        XCTAssertEqual(result.unconsumed, 0)
        let head = result.requests[0].head
        XCTAssertEqual(head.method, .get)
        XCTAssertEqual(head.target, "/xrpc/blue.catbird.mls.getGroup?convoId=abc&x=1")
        XCTAssertEqual(head.path, "/xrpc/blue.catbird.mls.getGroup")
        XCTAssertEqual(head.query, "convoId=abc&x=1")
        XCTAssertEqual(head.version, .http1_1)
        XCTAssertEqual(head.headers["host"], "example.com")
        XCTAssertEqual(head.headers["ACCEPT"], "*/*")
        XCTAssertEqual(result.requests[0].body, [])
    }

    func testHeaderValues_AreTrimmedAndOrdered() throws {
        let result = try parse("GET / HTTP/1.1\r\nHost: h\r\nX-A:   one  \r\nx-a:two\r\nX-Empty:\r\n\r\n")
        let headers = result.requests[0].headers
        XCTAssertEqual(headers.values(for: "X-A"), ["one", "two"])
        XCTAssertEqual(headers["x-empty"], "")
        XCTAssertEqual(headers.map(\.name), ["Host", "X-A", "x-a", "X-Empty"])
        XCTAssertEqual(result.requests[0].query, "")
    }

    func testContentLengthBody_IsRead() throws {
        let result = try parse("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello")
        XCTAssertEqual(result.requests.count, 1)
        XCTAssertEqual(result.requests[0].body, Array("hello".utf8))
    }

    func testEveryFeedSize_GivesTheSameRequests() throws {
        let text = "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
            + "POST /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nxyz\r\n2\r\n!!\r\n0\r\nT: v\r\n\r\n"
            + "GET /c HTTP/1.1\r\nHost: h\r\n\r\n"
        for feedSize in [1, 2, 3, 7, 16, 100, .max] {
            let result = try parse(text, feedSize: feedSize)
            XCTAssertEqual(result.requests.map(\.path), ["/a", "/b", "/c"], "feed size \(feedSize)")
            XCTAssertEqual(result.requests.map(\.body), [Array("abc".utf8), Array("xyz!!".utf8), []], "feed size \(feedSize)")
            XCTAssertEqual(result.unconsumed, 0)
        }
    }

    func testLeadingEmptyLines_AreIgnored() throws {
        // RFC 9112 §2.2
        let result = try parse("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        XCTAssertEqual(result.requests.count, 1)
    }

    func testHTTP10_ClosesUnlessKeepAlive() throws {
        var parser = HTTPRequestParser()
        try feedHead(&parser, "GET / HTTP/1.0\r\n\r\n")
        XCTAssertFalse(parser.keepAlive)
        parser = HTTPRequestParser()
        try feedHead(&parser, "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")
        XCTAssertTrue(parser.keepAlive)
        parser = HTTPRequestParser()
        try feedHead(&parser, "GET / HTTP/1.1\r\nHost: h\r\nConnection: foo, close\r\n\r\n")
        XCTAssertFalse(parser.keepAlive)
        parser = HTTPRequestParser()
        try feedHead(&parser, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        XCTAssertTrue(parser.keepAlive)
    }

    func testExpectContinue_IsReportedOnlyWithABody() throws {
        var parser = HTTPRequestParser()
        try feedHead(&parser, "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 4\r\n\r\n")
        XCTAssertTrue(parser.expectsContinue)
        parser = HTTPRequestParser()
        try feedHead(&parser, "GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertFalse(parser.expectsContinue)
        parser = HTTPRequestParser()
        // RFC 9110 §10.1.1: ignored for HTTP/1.0.
        try feedHead(&parser, "POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        XCTAssertFalse(parser.expectsContinue)
    }

    func testUnknownExpectation_Is417() {
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nExpect: something-else\r\nContent-Length: 1\r\n\r\nx", .expectationFailed)
        XCTAssertEqual(HTTPParserError.expectationFailed.status, 417)
    }

    func testBodyLimit_IsCheckedFromTheHead() throws {
        var parser = HTTPRequestParser()
        try feedHead(&parser, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n")
        XCTAssertThrowsError(try parser.setMaxBodySize(10)) { XCTAssertEqual($0 as? HTTPParserError, .payloadTooLarge) }
        // The parser stays failed.
        XCTAssertThrowsError(try [UInt8]("x".utf8).withUnsafeBytes { try parser.parse($0) })

        parser = HTTPRequestParser()
        try feedHead(&parser, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n")
        XCTAssertNoThrow(try parser.setMaxBodySize(10))
    }

    func testDefaultBodyLimit_Is413() {
        XCTAssertThrowsError(try parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 6\r\n\r\nabcdef", maxBodySize: 5)) {
            XCTAssertEqual($0 as? HTTPParserError, .payloadTooLarge)
            XCTAssertEqual(($0 as? HTTPParserError)?.status, 413)
        }
    }

    func testTruncatedRequests_WaitForMoreBytes() throws {
        let full = "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nabcd"
        for cut in 0..<full.utf8.count {
            let prefix = String(decoding: Array(full.utf8)[0..<cut], as: UTF8.self)
            let result = try parse(prefix)
            XCTAssertEqual(result.requests.count, 0, "cut at \(cut)")
        }
    }

    // MARK: Malformed requests

    func testMalformedRequestLines_Are400() {
        assertRejects("GARBAGE\r\n\r\n", .invalidRequestLine)
        assertRejects("GET\r\n\r\n", .invalidRequestLine)
        assertRejects("GET /\r\n\r\n", .invalidRequestLine)
        assertRejects("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget)
        assertRejects("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidMethod)
        assertRejects(" GET / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidMethod)
        assertRejects("GET /a\u{7F}b HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget)
        assertRejects("GET /é HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget)
        assertRejects("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", .invalidVersion)
        assertRejects("GET / http/1.1\r\nHost: h\r\n\r\n", .invalidVersion)
        assertRejects("GET / HTTP/1.x\r\nHost: h\r\n\r\n", .invalidVersion)
        assertRejects("GET / HTTP/11\r\nHost: h\r\n\r\n", .invalidVersion)
    }

    func testOtherVersions_Are505() {
        assertRejects("GET / HTTP/2.0\r\nHost: h\r\n\r\n", .unsupportedVersion)
        assertRejects("GET / HTTP/0.9\r\n\r\n", .unsupportedVersion)
        XCTAssertEqual(HTTPParserError.unsupportedVersion.status, 505)
    }

    func testBareLineEndings_AreRejected() {
        assertRejects("GET / HTTP/1.1\nHost: h\r\n\r\n", .invalidLineEnding)
        assertRejects("GET / HTTP/1.1\r\nHost: h\n\r\n", .invalidLineEnding)
        assertRejects("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", .invalidHeaderValue)
    }

    func testInvalidHeaderNames_AreRejected() {
        assertRejects("GET / HTTP/1.1\r\nHost: h\r\nBad Name: v\r\n\r\n", .invalidHeaderName)
        assertRejects("GET / HTTP/1.1\r\nHost : h\r\n\r\n", .invalidHeaderName)
        assertRejects("GET / HTTP/1.1\r\n: v\r\nHost: h\r\n\r\n", .invalidHeaderName)
        assertRejects("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", .invalidHeaderName)
        assertRejects("GET / HTTP/1.1\r\nHost: h\r\nX\u{1}Y: v\r\n\r\n", .invalidHeaderName)
    }

    func testInvalidHeaderValues_AreRejected() {
        assertRejects("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n", .invalidHeaderValue)
        assertRejects("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{7F}\r\n\r\n", .invalidHeaderValue)
    }

    func testObsoleteLineFolding_IsRejected() {
        assertRejects("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n  continued\r\n\r\n", .obsoleteLineFolding)
        assertRejects("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n\tcontinued\r\n\r\n", .obsoleteLineFolding)
    }

    func testHost_IsRequiredOnceInHTTP11() {
        assertRejects("GET / HTTP/1.1\r\n\r\n", .invalidHost)
        assertRejects("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .invalidHost)
    }

    func testContentLengthErrors_Are400() {
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", .invalidContentLength)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\nhello", .invalidContentLength)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", .invalidContentLength)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n", .invalidContentLength)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", .invalidContentLength)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", .invalidContentLength)
    }

    func testTransferEncodingErrors_AreRejected() {
        let chunkedBody = "0\r\n\r\n"
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody,
                      .contentLengthWithTransferEncoding)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n" + chunkedBody,
                      .contentLengthWithTransferEncoding)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", .invalidTransferEncoding)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", .invalidTransferEncoding)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
                      .invalidTransferEncoding)
        assertRejects("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody, .invalidTransferEncoding)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + chunkedBody,
                      .unsupportedTransferEncoding)
        XCTAssertEqual(HTTPParserError.unsupportedTransferEncoding.status, 501)
    }

    func testTransferEncodingChunked_IsCaseInsensitive() throws {
        let result = try parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: CHUNKED\r\n\r\n1\r\na\r\n0\r\n\r\n")
        XCTAssertEqual(result.requests.first?.body, Array("a".utf8))
    }

    // MARK: Limits

    func testOversizedHeaderSection_Is431() {
        let big = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + String(repeating: "a", count: 20_000) + "\r\n\r\n"
        XCTAssertThrowsError(try parse(big)) { XCTAssertEqual(($0 as? HTTPParserError)?.status, 431) }
        // Also when the terminator never arrives.
        let endless = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + String(repeating: "a", count: 20_000)
        XCTAssertThrowsError(try parse(endless, feedSize: 1000)) { XCTAssertEqual($0 as? HTTPParserError, .headerSectionTooLarge) }
    }

    func testHeaderSectionJustUnderTheLimit_IsAccepted() throws {
        let prefix = "GET / HTTP/1.1\r\nHost: h\r\nX: "
        let padding = 1024 - prefix.utf8.count - 4
        let text = prefix + String(repeating: "a", count: padding) + "\r\n\r\n"
        XCTAssertEqual(text.utf8.count, 1024)
        XCTAssertEqual(try parse(text, maxHeaderBytes: 1025).requests.count, 1)
        XCTAssertThrowsError(try parse(text, maxHeaderBytes: 1000))
    }

    func testTooManyHeaderFields_Is431() {
        let text = "GET / HTTP/1.1\r\nHost: h\r\n" + String(repeating: "a: b\r\n", count: 300) + "\r\n"
        assertRejects(text, .headerSectionTooLarge)
    }

    // MARK: Helpers

    private func feedHead(_ parser: inout HTTPRequestParser, _ text: String) throws {
        let bytes = Array(text.utf8)
        let result = try bytes.withUnsafeBytes { raw in
            Result { () throws(HTTPParserError) in try parser.parse(raw) }
        }.get()
        XCTAssertEqual(result.consumed, bytes.count)
        guard case .head = result.event else { return XCTFail("expected a head") }
    }
}
