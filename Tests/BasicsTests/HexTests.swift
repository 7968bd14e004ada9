import Basics
import XCTest

final class HexTests: XCTestCase {
    func testEncodeIsLowercase() {
        XCTAssertEqual(Hex.encode([0, 0xAB, 0xFF]), "00abff")
        XCTAssertEqual(Hex.encode([]), "")
    }

    func testDecodeAcceptsEitherCase_AndRefusesMalformed() {
        XCTAssertEqual(Hex.decode("00ABff"), [0, 0xAB, 0xFF])
        XCTAssertEqual(Hex.decode(""), [])
        for bad in ["abc", "zz", "0g", " 0", "0x00", "é0"] { XCTAssertNil(Hex.decode(bad), bad) }
    }

    func testRoundTrip() {
        let bytes = (0...255).map(UInt8.init)
        XCTAssertEqual(Hex.decode(Hex.encode(bytes)), bytes)
    }
}
