import XCTest
@testable import HTTP

/// The word-at-a-time field value check against the byte-at-a-time rule (RFC 9110 §5.5).
final class FieldValueScanTests: XCTestCase {
    private func check(_ bytes: [UInt8], _ message: @autoclosure () -> String) {
        let expected = bytes.allSatisfy(ASCII.isFieldValueByte)
        XCTAssertEqual(bytes.withUnsafeBytes { ASCII.areFieldValueBytes($0) }, expected, message())
    }

    func testEveryByteValueAtEveryPosition() {
        for length in [1, 7, 8, 9, 16, 17] {
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                    bytes[position] = UInt8(value)
                    check(bytes, "length \(length) byte \(value) at \(position)")
                }
            }
        }
    }

    func testNeighbouringBytes() {
        let values: [UInt8] = [0x00, 0x08, 0x09, 0x0A, 0x1F, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0xFF]
        for a in values {
            for b in values {
                var bytes = [UInt8](repeating: 0x41, count: 16)
                bytes[6] = a
                bytes[7] = b
                check(bytes, "\(a) \(b)")
            }
        }
        check([], "empty")
    }

    func testATokenLongValueWithATabLate() {
        var bytes = Array(("Bearer " + String(repeating: "eyJhbGciOiJFUzI1NksifQ.", count: 30)).utf8)
        check(bytes, "token")
        bytes.insert(0x09, at: 500)
        check(bytes, "token with a tab")
        bytes.insert(0x0B, at: 600)
        check(bytes, "token with a vertical tab")
    }
}
