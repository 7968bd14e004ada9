import Basics
import XCTest

/// The Relay protocol's CBOR (RFC 8949): arrays of byte or text strings, shortest form only,
/// bounded before allocating, everything else refused.
final class CBORArrayTests: XCTestCase {
    func testRoundTrip_AtEveryLengthBoundary() throws {
        for length in [0, 1, 23, 24, 255, 256, 65_535, 65_536] {
            let item = [UInt8](repeating: 7, count: length)
            let encoded = CBORArray.encode(byteStrings: [item, [1, 2]])
            XCTAssertEqual(try CBORArray.decodeByteStrings(encoded, maxCount: 2, maxItemBytes: 1 << 17), [item, [1, 2]], "\(length)")
        }
        let texts = ["0123456789abcdef0123456789abcdef", "é"]
        XCTAssertEqual(try CBORArray.decodeTextStrings(CBORArray.encode(textStrings: texts), maxCount: 2, maxItemBytes: 64), texts)
        // RFC 8949 Appendix A: [h'0102'] is 0x81 0x42 0x01 0x02.
        XCTAssertEqual(CBORArray.encode(byteStrings: [[1, 2]]), [0x81, 0x42, 0x01, 0x02])
        XCTAssertEqual(CBORArray.encode(textStrings: ["a"]), [0x81, 0x61, 0x61])
    }

    func testMalformedInput_IsRefused() {
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("not an array", [0x42, 0x01, 0x02]),
            ("truncated item", [0x81, 0x45, 0x01]),
            ("truncated length", [0x81, 0x59, 0x01]),
            ("trailing bytes", [0x81, 0x41, 0x01, 0x00]),
            ("indefinite array", [0x9F, 0x41, 0x01, 0xFF]),
            ("indefinite byte string", [0x81, 0x5F, 0x41, 0x01, 0xFF]),
            ("non-minimal count", [0x98, 0x01, 0x41, 0x01]),
            ("non-minimal length", [0x81, 0x58, 0x01, 0x01]),
            ("wrong item type", [0x81, 0x61, 0x61]),
            ("missing items", [0x82, 0x41, 0x01]),
            ("reserved length", [0x81, 0x5C]),
        ]
        for (name, bytes) in cases {
            XCTAssertThrowsError(try CBORArray.decodeByteStrings(bytes, maxCount: 10, maxItemBytes: 100), name)
        }
        XCTAssertThrowsError(try CBORArray.decodeTextStrings([0x81, 0x62, 0xC3, 0x28], maxCount: 10, maxItemBytes: 100), "bad UTF-8")
    }

    func testLimits_AreCheckedBeforeAllocating() {
        // An array claiming 2^32 items, and an item claiming 2^32 bytes, in a few bytes each.
        XCTAssertThrowsError(try CBORArray.decodeByteStrings([0x9A, 0xFF, 0xFF, 0xFF, 0xFF], maxCount: 100, maxItemBytes: 100))
        XCTAssertThrowsError(try CBORArray.decodeByteStrings([0x81, 0x5A, 0xFF, 0xFF, 0xFF, 0xFF], maxCount: 100, maxItemBytes: 100))
        XCTAssertThrowsError(try CBORArray.decodeByteStrings(CBORArray.encode(byteStrings: [[1], [2], [3]]), maxCount: 2, maxItemBytes: 10))
        XCTAssertThrowsError(try CBORArray.decodeByteStrings(CBORArray.encode(byteStrings: [[1, 2, 3]]), maxCount: 2, maxItemBytes: 2))
    }
}
