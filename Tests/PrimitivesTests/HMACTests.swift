import Primitives
import XCTest

final class HMACTests: XCTestCase {
    func test_hmac_matchesRFC4231TestCase2() throws {
        let key = Array("Jefe".utf8)
        let data = Array("what do ya want for nothing?".utf8)
        XCTAssertEqual(try HMAC.authenticationCode(for: data, key: key, hash: .sha256),
                       try hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
        XCTAssertEqual(try HMAC.authenticationCode(for: data, key: key, hash: .sha384), try hex(
            "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649"))
        XCTAssertEqual(try HMAC.authenticationCode(for: data, key: key, hash: .sha512), try hex(
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fd"
                + "caeab1a34d4a6b4b636e070a38bce737"))
    }

    func test_hmac_emptyKeyEqualsZeroKey_andIsValidChecksExactly() throws {
        let message = Array("m".utf8)
        let empty = try HMAC.authenticationCode(for: message, key: [], hash: .sha256)
        XCTAssertEqual(empty, try HMAC.authenticationCode(for: message, key: [UInt8](repeating: 0, count: 32), hash: .sha256))
        XCTAssertTrue(HMAC.isValid(empty, for: message, key: [], hash: .sha256))
        var tampered = empty
        tampered[0] ^= 1
        XCTAssertFalse(HMAC.isValid(tampered, for: message, key: [], hash: .sha256))
        XCTAssertFalse(HMAC.isValid(Array(empty.dropLast()), for: message, key: [], hash: .sha256))
        // Keys longer than a block are hashed first; still works.
        XCTAssertEqual(try HMAC.authenticationCode(for: [], key: [UInt8](repeating: 7, count: 300), hash: .sha512).count, 64)
    }

    func test_hkdf_matchesRFC5869TestCase1() throws {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        let salt = Array(UInt8(0x00)...UInt8(0x0c))
        let info = Array(UInt8(0xf0)...UInt8(0xf9))
        let prk = try HKDF.extract(salt: salt, ikm: ikm, hash: .sha256)
        XCTAssertEqual(prk, try hex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"))
        XCTAssertEqual(try HKDF.expand(prk: prk, info: info, length: 42, hash: .sha256), try hex(
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    }

    func test_hkdfExpand_rejectsLengthsBeyond255Blocks() throws {
        let prk = [UInt8](repeating: 1, count: 32)
        XCTAssertEqual(try HKDF.expand(prk: prk, info: [], length: 255 * 32, hash: .sha256).count, 255 * 32)
        XCTAssertEqual(try HKDF.expand(prk: prk, info: [], length: 0, hash: .sha256), [])
        XCTAssertThrowsError(try HKDF.expand(prk: prk, info: [], length: 255 * 32 + 1, hash: .sha256))
        XCTAssertThrowsError(try HKDF.expand(prk: prk, info: [], length: -1, hash: .sha256))
    }

    func test_constantTimeEquals() {
        XCTAssertTrue(ConstantTime.equals([], []))
        XCTAssertTrue(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        XCTAssertFalse(ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        XCTAssertFalse(ConstantTime.equals([1, 2, 3], [1, 2]))
        var secret: [UInt8] = [9, 9, 9]
        ConstantTime.wipe(&secret)
        XCTAssertEqual(secret, [0, 0, 0])
    }
}
