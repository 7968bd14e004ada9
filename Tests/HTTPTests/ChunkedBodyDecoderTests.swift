import XCTest
@testable import HTTP

final class ChunkedBodyDecoderTests: XCTestCase {
    private func decode(_ text: String, maxBodySize: Int = 1 << 20, maxTrailerBytes: Int = 1024, feedSize: Int = .max)
        throws(HTTPParserError) -> (body: [UInt8], done: Bool, unconsumed: Int) {
        var decoder = ChunkedBodyDecoder(maxBodySize: maxBodySize, maxTrailerBytes: maxTrailerBytes)
        var body: [UInt8] = []
        var buffer: [UInt8] = []
        let bytes = Array(text.utf8)
        var fed = 0
        var done = false
        while fed < bytes.count, !done {
            let next = min(bytes.count, fed + min(feedSize, bytes.count - fed))
            buffer.append(contentsOf: bytes[fed..<next])
            fed = next
            let step = try buffer.withUnsafeBytes { raw in
                Result { () throws(HTTPParserError) in try decoder.decode(raw, into: &body) }
            }.get()
            buffer.removeFirst(step.consumed)
            done = step.done
        }
        return (body, done, buffer.count + bytes.count - fed)
    }

    private func assertRejects(_ text: String, _ expected: HTTPParserError, maxBodySize: Int = 1 << 20,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try decode(text, maxBodySize: maxBodySize), file: file, line: line) {
            XCTAssertEqual($0 as? HTTPParserError, expected, file: file, line: line)
        }
    }

    func testChunks_AreJoined() throws {
        let result = try decode("4\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\n\r\nNEXT")
        XCTAssertEqual(String(decoding: result.body, as: UTF8.self), "Wikipedia in\r\n\r\nchunks.")
        XCTAssertTrue(result.done)
        XCTAssertEqual(result.unconsumed, 4)
    }

    func testByteByByte_GivesTheSameBody() throws {
        let text = "a;name=\"quoted;value\"\r\n0123456789\r\n1 ; x\r\n!\r\n0\r\nTrailer-A: 1\r\nTrailer-B: 2\r\n\r\n"
        let whole = try decode(text)
        let dribbled = try decode(text, feedSize: 1)
        XCTAssertEqual(whole.body, Array("0123456789!".utf8))
        XCTAssertEqual(dribbled.body, whole.body)
        XCTAssertTrue(dribbled.done)
    }

    func testUppercaseAndLeadingZeroSizes_AreAccepted() throws {
        let result = try decode("000A\r\n0123456789\r\n00\r\n\r\n")
        XCTAssertEqual(result.body.count, 10)
        XCTAssertTrue(result.done)
    }

    func testTruncatedBodies_AreNotDone() throws {
        let text = "5\r\nhello\r\n0\r\n\r\n"
        for cut in 0..<text.utf8.count {
            let prefix = String(decoding: Array(text.utf8)[0..<cut], as: UTF8.self)
            XCTAssertFalse(try decode(prefix).done, "cut at \(cut)")
        }
    }

    func testMalformedChunks_AreRejected() {
        assertRejects("\r\nhello\r\n0\r\n\r\n", .invalidChunk)
        assertRejects("g\r\nhello\r\n0\r\n\r\n", .invalidChunk)
        assertRejects("0x5\r\nhello\r\n0\r\n\r\n", .invalidChunk)
        assertRejects("-5\r\nhello\r\n0\r\n\r\n", .invalidChunk)
        assertRejects("5\nhello\r\n0\r\n\r\n", .invalidChunk)
        assertRejects("5\r\nhelloXX0\r\n\r\n", .invalidChunk)
        assertRejects("5\r\nhello\n0\r\n\r\n", .invalidChunk)
        assertRejects("5 junk\r\nhello\r\n0\r\n\r\n", .invalidChunk)
        assertRejects("5;a\u{0}\r\nhello\r\n0\r\n\r\n", .invalidChunk)
        assertRejects("1000000000000000\r\n", .invalidChunk)
    }

    func testOversizedChunkLine_IsRejected() {
        let text = "5;" + String(repeating: "x", count: 5000)
        assertRejects(text, .invalidChunk)
    }

    func testBodyLimit_Is413BeforeTheDataArrives() {
        assertRejects("6\r\n", .payloadTooLarge, maxBodySize: 5)
        assertRejects("3\r\nabc\r\n3\r\n", .payloadTooLarge, maxBodySize: 5)
        XCTAssertNoThrow(try decode("3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", maxBodySize: 5))
    }

    func testTrailers_AreBoundedAndValidated() {
        let many = "0\r\n" + String(repeating: "T: vvvvvvvvvv\r\n", count: 100) + "\r\n"
        assertRejects(many, .headerSectionTooLarge)
        assertRejects("0\r\nBad Trailer: v\r\n\r\n", .invalidHeaderName)
        assertRejects("0\r\nT: v\r\n folded\r\n\r\n", .obsoleteLineFolding)
        assertRejects("0\r\nT: v\n\r\n", .invalidLineEnding)
    }
}
