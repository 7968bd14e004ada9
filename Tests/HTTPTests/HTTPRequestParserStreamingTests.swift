import XCTest
@testable import HTTP

/// The parser's streamed-body mode: `.bodyPart`s instead of one accumulated body.
final class HTTPRequestParserStreamingTests: XCTestCase {
    /// Feeds `bytes` `feedSize` at a time, switching to streaming after the head; returns the parts,
    /// whether `.body` ended the request, and the error if one was thrown.
    private func stream(_ text: String, feedSize: Int, limit: Int = 1 << 20) -> (parts: [[UInt8]], ended: Bool, error: HTTPParserError?) {
        var parser = HTTPRequestParser()
        var buffer: [UInt8] = []
        var parts: [[UInt8]] = []
        var ended = false
        let bytes = Array(text.utf8)
        var fed = 0
        do {
            while fed < bytes.count, !ended {
                let next = min(bytes.count, fed + feedSize)
                buffer += bytes[fed..<next]
                fed = next
                while true {
                    let step = try buffer.withUnsafeBytes { raw in Result { () throws(HTTPParserError) in try parser.parse(raw) } }.get()
                    buffer.removeFirst(step.consumed)
                    guard let event = step.event else { break }
                    switch event {
                    case .head:
                        try parser.setMaxBodySize(limit)
                        parser.streamBody()
                    case let .bodyPart(part):
                        XCTAssertFalse(part.isEmpty)
                        parts.append(part)
                    case let .body(body):
                        XCTAssertTrue(body.isEmpty)
                        ended = true
                    }
                    if ended { break }
                }
            }
        } catch {
            return (parts, ended, error)
        }
        return (parts, ended, nil)
    }

    func testContentLengthBody_ArrivesInPieces() {
        let request = "POST /u HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n0123456789"
        for feedSize in [1, 3, 1000] {
            let result = stream(request, feedSize: feedSize)
            XCTAssertNil(result.error)
            XCTAssertTrue(result.ended)
            XCTAssertEqual(String(decoding: result.parts.joined(), as: UTF8.self), "0123456789")
            if feedSize == 1 { XCTAssertEqual(result.parts.count, 10) }
        }
    }

    func testChunkedBody_ArrivesInPieces() {
        let request = "POST /u HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n5;x=y\r\ndefgh\r\n0\r\nT: v\r\n\r\n"
        for feedSize in [1, 7, 1000] {
            let result = stream(request, feedSize: feedSize)
            XCTAssertNil(result.error)
            XCTAssertTrue(result.ended)
            XCTAssertEqual(String(decoding: result.parts.joined(), as: UTF8.self), "abcdefgh")
        }
    }

    func testLargeBodies_ComeInBoundedParts_WhateverIsBuffered() {
        // 65_529 + "fff9\r\n" puts a part boundary right after a chunk-size line.
        let sizes = [70_000, 65_529, 3, 200_000]
        var chunked = "POST /u HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
        for size in sizes { chunked += String(size, radix: 16) + "\r\n" + String(repeating: "c", count: size) + "\r\n" }
        chunked += "0\r\n\r\n"
        let length = "POST /u HTTP/1.1\r\nHost: t\r\nContent-Length: 300000\r\n\r\n" + String(repeating: "l", count: 300_000)
        for (request, total) in [(chunked, sizes.reduce(0, +)), (length, 300_000)] {
            let result = stream(request, feedSize: 1 << 20)
            XCTAssertNil(result.error)
            XCTAssertTrue(result.ended)
            XCTAssertEqual(result.parts.joined().count, total)
            XCTAssertLessThanOrEqual(result.parts.map(\.count).max() ?? 0, HTTPRequestParser.maxBodyPartSize)
        }
    }

    func testStreamedChunkedBody_StillHonoursTheLimit() {
        let request = "POST /u HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n4\r\nefgh\r\n0\r\n\r\n"
        let result = stream(request, feedSize: 1, limit: 6)
        XCTAssertEqual(result.error, .payloadTooLarge)
        XCTAssertEqual(result.parts.joined().count, 4)
        XCTAssertFalse(result.ended)
    }

    func testTruncatedAndMalformedStreamedBodies() {
        let truncated = stream("POST /u HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n01234", feedSize: 2)
        XCTAssertNil(truncated.error)
        XCTAssertFalse(truncated.ended)
        XCTAssertEqual(truncated.parts.joined().count, 5)
        let malformed = stream("POST /u HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n", feedSize: 4)
        XCTAssertEqual(malformed.error, .invalidChunk)
        XCTAssertFalse(malformed.ended)
    }

    func testNextRequest_IsBufferedAgain() throws {
        var parser = HTTPRequestParser()
        let bytes = Array("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhiPOST /b HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nyo".utf8)
        var events: [String] = []
        var offset = 0
        while offset < bytes.count {
            let step = try bytes[offset...].withUnsafeBytes { raw in Result { () throws(HTTPParserError) in try parser.parse(raw) } }.get()
            offset += step.consumed
            switch step.event {
            case let .head(head)?:
                events.append("head \(head.path)")
                if head.path == "/a" { parser.streamBody() }
            case let .bodyPart(part)?: events.append("part " + String(decoding: part, as: UTF8.self))
            case let .body(body)?: events.append("body " + String(decoding: body, as: UTF8.self))
            case nil: XCTFail("stalled")
            }
        }
        XCTAssertEqual(events, ["head /a", "part hi", "body ", "head /b", "body yo"])
    }
}
