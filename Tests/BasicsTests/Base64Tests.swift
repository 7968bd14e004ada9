import Foundation
import XCTest
@testable import Basics

final class Base64Tests: XCTestCase {
    func testRoundTripsEveryLengthAgainstFoundation() {
        var bytes: [UInt8] = []
        for length in 0..<70 {
            let padded = Base64.encode(bytes)
            XCTAssertEqual(padded, Data(bytes).base64EncodedString(), "length \(length)")
            let unpadded = Base64.encode(bytes, padding: false)
            XCTAssertEqual(unpadded, padded.replacingOccurrences(of: "=", with: ""))
            XCTAssertEqual(Base64.decode(padded), bytes)
            XCTAssertEqual(Base64.decode(unpadded), bytes)
            bytes.append(UInt8(truncatingIfNeeded: length &* 37 &+ 250))
        }
        XCTAssertEqual(Base64.decode("+/+/"), [0xFB, 0xFF, 0xBF])
    }

    func testAppendsAfterExistingBytes() {
        var out = Array("x:".utf8)
        Base64.append([0xFF, 0xEE], padding: true, to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "x:/+4=")
    }

    func testDecodesFromASlice() {
        let text = Array("[AAEC]".utf8)
        XCTAssertEqual(Base64.decode(utf8: text[1..<5]), [0, 1, 2])
    }

    func testMalformedIsRefused() {
        let bad = [
            "A", "AAAAA", "A===", "====", "AA=", "AA=A", "=AAA", "AB==", "AAB=", "AA\nA", "AA A", "AA-_", "AAA\u{e9}",
            "AAAA====",
        ]
        for text in bad {
            XCTAssertNil(Base64.decode(text), text)
        }
        XCTAssertEqual(Base64.decode(""), [])
        XCTAssertEqual(Base64.decode("AA=="), [0])
        XCTAssertEqual(Base64.decode("AAA="), [0, 0])
    }
}
