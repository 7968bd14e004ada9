import XCTest
@testable import ATProto

final class Base58Tests: XCTestCase {
    func testKnownVectors() {
        // draft-msporny-base58 §5
        XCTAssertEqual(Base58.encode(Array("Hello World!".utf8)), "2NEpo7TZRRrLZSi2U")
        XCTAssertEqual(Base58.encode(Array("The quick brown fox jumps over the lazy dog.".utf8)),
                       "USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z")
        XCTAssertEqual(Base58.encode([0x00, 0x00, 0x28, 0x7F, 0xB4, 0xCD]), "11233QC4")
        XCTAssertEqual(Base58.decode("11233QC4"), [0x00, 0x00, 0x28, 0x7F, 0xB4, 0xCD])
        XCTAssertEqual(Base58.decode("2NEpo7TZRRrLZSi2U"), Array("Hello World!".utf8))
    }

    func testEdgeCases() {
        XCTAssertEqual(Base58.encode([]), "")
        XCTAssertEqual(Base58.decode(""), [])
        XCTAssertEqual(Base58.encode([0]), "1")
        XCTAssertEqual(Base58.decode("1"), [0])
        XCTAssertEqual(Base58.encode([0xFF]), "5Q")
    }

    func testMalformedInput() {
        for bad in ["0", "O", "I", "l", "abc+", "z z", "é"] {
            XCTAssertNil(Base58.decode(bad), bad)
        }
    }

    func testOversizedInputIsRefused() {
        XCTAssertNil(Base58.decode(String(repeating: "z", count: 513)))
        XCTAssertNotNil(Base58.decode(String(repeating: "z", count: 512)))
    }

    func testRoundTrip() {
        for length in 0..<50 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ ($0 < 3 ? 0 : 7)) }
            XCTAssertEqual(Base58.decode(Base58.encode(bytes)), bytes)
        }
    }
}
