import XCTest
@testable import JSON

/// The word-at-a-time scan against a byte-at-a-time one, on every special byte at every position
/// of a word and on random buffers.
final class JSONStringScanTests: XCTestCase {
    private func reference(_ bytes: [UInt8], from start: Int, stopAtNonASCII: Bool) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || (stopAtNonASCII && byte >= 0x80) { break }
            index += 1
        }
        return index
    }

    private func check(_ bytes: [UInt8], from start: Int, _ message: @autoclosure () -> String) {
        for stop in [true, false] {
            let found = bytes.withUnsafeBytes { JSONStringScan.firstSpecial(in: $0, from: start, stopAtNonASCII: stop) }
            XCTAssertEqual(found, reference(bytes, from: start, stopAtNonASCII: stop), "\(message()) stopAtNonASCII \(stop)")
        }
    }

    func testEveryByteValueAtEveryPosition() {
        for length in [1, 7, 8, 9, 16, 17, 24] {
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = UInt8(value)
                    check(bytes, from: 0, "length \(length) byte \(value) at \(position)")
                }
            }
        }
    }

    func testBordersOfTheSpecialRanges() {
        // Neighbours of each special value, so a borrow or carry across bytes would show.
        let values: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF]
        for a in values {
            for b in values {
                var bytes = [UInt8](repeating: 0x41, count: 16)
                bytes[3] = a
                bytes[4] = b
                check(bytes, from: 0, "\(a) \(b)")
                check(bytes, from: 4, "\(a) \(b) from 4")
            }
        }
    }

    func testRandomBuffersAndOffsets() {
        var state: UInt64 = 0x5EED
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for round in 0..<20_000 {
            let length = Int(next() % 40)
            // Mostly plain bytes, so that the runs are long enough to take whole words.
            let bytes = (0..<length).map { _ in next() % 16 == 0 ? UInt8(truncatingIfNeeded: next()) : UInt8(0x30 + next() % 60) }
            let start = length == 0 ? 0 : Int(next() % UInt64(length + 1))
            check(bytes, from: start, "round \(round)")
        }
        check([], from: 0, "empty")
    }
}
