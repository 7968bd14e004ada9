import XCTest
@testable import ATProto

final class Base64URLTests: XCTestCase {
    func testRFC4648Vectors() {
        // RFC 4648 §10, in the URL-safe alphabet without padding.
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64URL.encode(Array(plain.utf8)), encoded)
            XCTAssertEqual(Base64URL.decode(encoded), Array(plain.utf8))
        }
    }

    func testURLSafeAlphabet() {
        XCTAssertEqual(Base64URL.encode([0xFB, 0xFF, 0xBF]), "-_-_")
        XCTAssertEqual(Base64URL.decode("-_-_"), [0xFB, 0xFF, 0xBF])
        XCTAssertNil(Base64URL.decode("+/+/"), "standard alphabet is not base64url")
    }

    func testPaddingIsTolerated() {
        XCTAssertEqual(Base64URL.decode("Zg=="), Array("f".utf8))
        XCTAssertEqual(Base64URL.decode("Zm8="), Array("fo".utf8))
        XCTAssertNil(Base64URL.decode("Zg="), "wrong amount of padding")
        XCTAssertNil(Base64URL.decode("Zg==="))
        XCTAssertNil(Base64URL.decode("===="))
        XCTAssertNil(Base64URL.decode("Z=g="), "padding in the middle")
    }

    func testTruncatedAndMalformedInput() {
        XCTAssertNil(Base64URL.decode("Z"), "a single character can never be a whole byte")
        XCTAssertNil(Base64URL.decode("Zm9vY"))
        XCTAssertNil(Base64URL.decode("Zm 9v"))
        XCTAssertNil(Base64URL.decode("Zm9v\n"))
        XCTAssertNil(Base64URL.decode("Zm9v\u{00e9}"))
        XCTAssertNil(Base64URL.decode("Zh"), "non-zero trailing bits")
    }

    func testRoundTripOfAllLengths() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            XCTAssertEqual(Base64URL.decode(Base64URL.encode(bytes)), bytes)
        }
    }

    func testOversizedInputDecodes() {
        let bytes = [UInt8](repeating: 0xA5, count: 300_000)
        XCTAssertEqual(Base64URL.decode(Base64URL.encode(bytes)), bytes)
    }
}
