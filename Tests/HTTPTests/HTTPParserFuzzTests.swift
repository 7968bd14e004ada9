import Basics
import XCTest
@testable import HTTP

/// Random and mutated inputs: the parser must never crash, and whatever it accepts must be sane.
final class HTTPParserFuzzTests: XCTestCase {
    private static let seeds: [[UInt8]] = [
        "GET / HTTP/1.1\r\nHost: h\r\n\r\n",
        "POST /x?y=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;e=1\r\nhello\r\n0\r\nT: v\r\n\r\n",
        "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n",
    ].map { Array($0.utf8) }

    private func check(_ input: [UInt8], feedSize: Int) {
        do {
            let result = try HTTPRequestParser.parseMessages(input, feedSize: feedSize, maxHeaderBytes: 512, maxBodySize: 256)
            XCTAssertLessThanOrEqual(result.unconsumed, input.count)
            for request in result.requests {
                XCTAssertLessThanOrEqual(request.body.count, 256)
                XCTAssertFalse(request.head.method.rawValue.isEmpty)
                XCTAssertTrue(request.head.target.hasPrefix(request.head.path))
                XCTAssertTrue([HTTPVersion.http1_0, .http1_1].contains(request.head.version))
                for (name, value) in request.headers {
                    XCTAssertFalse(name.isEmpty)
                    XCTAssertFalse(value.utf8.contains(ASCII.cr) || value.utf8.contains(ASCII.lf))
                }
            }
        } catch {
            XCTAssertTrue([400, 413, 417, 431, 501, 505].contains(error.status), "\(error)")
        }
    }

    func testRandomBytes_NeverCrash() {
        var random = SplitMix64(seed: 0xC0FFEE)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0..<300, using: &random)
            let input = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            check(input, feedSize: Int.random(in: 1...64, using: &random))
        }
    }

    func testMutatedRequests_NeverCrash() {
        var random = SplitMix64(seed: 42)
        let alphabet = Array("\r\n :;,0123456789abcdefABCDEF\t\u{0}\u{7F}-chunkedContent-LengthTransfer-Encoding".utf8)
        for round in 0..<5_000 {
            var input = Self.seeds[round % Self.seeds.count]
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let position = Int.random(in: 0...input.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where position < input.count: input[position] = alphabet.randomElement(using: &random)!
                case 1: input.insert(alphabet.randomElement(using: &random)!, at: position)
                case 2 where position < input.count: input.remove(at: position)
                default:
                    let other = Self.seeds.randomElement(using: &random)!
                    let start = Int.random(in: 0..<other.count, using: &random)
                    input.insert(contentsOf: other[start..<min(other.count, start + 12)], at: position)
                }
            }
            check(input, feedSize: Int.random(in: 1...40, using: &random))
        }
    }
}
