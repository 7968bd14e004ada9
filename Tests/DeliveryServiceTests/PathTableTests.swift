import XCTest
import Basics
@testable import DeliveryService

/// The router's path table against a Dictionary holding the same entries.
final class PathTableTests: XCTestCase {
    func testFindsEveryEntry_AndNothingElse() {
        var random = SplitMix64(seed: 0x9A7)
        let paths = (0..<300).map { "/xrpc/blue.catbird.mls.m\($0)" } + ["/xrpc/_health", "/", "", "/metrics"]
        let table = PathTable(paths.enumerated().map { ($0.element, $0.offset) })
        let reference = Dictionary(uniqueKeysWithValues: paths.enumerated().map { ($0.element, $0.offset) })
        for path in paths {
            XCTAssertEqual(table[path], reference[path], path)
        }
        // Near misses: prefixes, extensions, one byte changed, other cases, non-ASCII.
        var misses = ["/xrpc/", "/xrpc/blue.catbird.mls.m", "/xrpc/blue.catbird.mls.m3000", "/XRPC/_health",
                      "/xrpc/_health/", "/xrpc/_héalth", "/metrics?x", " /"]
        for _ in 0..<2_000 {
            var bytes = Array(paths[Int(random.next() % UInt64(paths.count))].utf8)
            if bytes.isEmpty { bytes = [0x2F] }
            let index = Int(random.next() % UInt64(bytes.count))
            bytes[index] = UInt8(truncatingIfNeeded: random.next() % 0x80)
            misses.append(String(decoding: bytes, as: UTF8.self))
        }
        for path in misses {
            XCTAssertEqual(table[path], reference[path], path)
        }
        // A path taken from a larger string (a substring's copy) is found like any other.
        let request = "GET /xrpc/_health HTTP/1.1"
        XCTAssertEqual(table[String(request.split(separator: " ")[1])], reference["/xrpc/_health"])
    }
}
