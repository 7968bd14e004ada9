import Basics
import XCTest
import Primitives
@testable import ATProto

/// AUTH.md "Known spec test data".
final class MultikeyTests: XCTestCase {
    func testSpecSecp256k1Multikey() throws {
        let key = try Multikey.decode("zQ3shqwJEJyMBsBXCWyCBpUBMqxcon9oHB7mCvx4sSpMdLJwc")
        XCTAssertEqual(key.curve, .secp256k1)
        XCTAssertEqual(key.algorithm, .es256k)
        XCTAssertEqual(key.multikey, "zQ3shqwJEJyMBsBXCWyCBpUBMqxcon9oHB7mCvx4sSpMdLJwc")
    }

    func testSpecP256Multikey() throws {
        let key = try Multikey.decode("zDnaembgSGUhZULN2Caob4HLJPaxBh92N7rtH21TErzqf8HQo")
        XCTAssertEqual(key.curve, .p256)
        XCTAssertEqual(key.algorithm, .es256)
        XCTAssertEqual(key.multikey, "zDnaembgSGUhZULN2Caob4HLJPaxBh92N7rtH21TErzqf8HQo")
    }

    func testSpecLegacyKeyEqualsMultikey() throws {
        let legacy = try Multikey.decodeLegacy(
            "zQYEBzXeuTM9UR3rfvNag6L3RNAs5pQZyYPsomTsgQhsxLdEgCrPTLgFna8yqCnxPpNT7DBk6Ym3dgPKNu86vt9GR", curve: .secp256k1)
        let multikey = try Multikey.decode("zQ3shXjHeiBuRCKmM36cuYnm7YEMzhGnCmCyW92sRJ9pribSF")
        XCTAssertEqual(legacy, multikey)
        XCTAssertEqual(legacy.multikey, "zQ3shXjHeiBuRCKmM36cuYnm7YEMzhGnCmCyW92sRJ9pribSF")
    }

    func testSpecDIDKeyFromPrivateKey() throws {
        let scalar = try XCTUnwrap(hex("9085d2bef69286a6cbb51623c8fa258629945cd55ca705cc4e66700396894e0c"))
        let key = try ECDSAPrivateKey(curve: .secp256k1, scalar: scalar)
        XCTAssertEqual(Multikey.didKey(publicKey: key.publicKey), "did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme")
    }

    func testEncodingPrefixes() throws {
        let k256 = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let p256 = try ECDSAPrivateKey.generate(curve: .p256)
        XCTAssertTrue(Multikey.encode(publicKey: k256.publicKey).hasPrefix("zQ3s"))
        XCTAssertTrue(Multikey.encode(publicKey: p256.publicKey).hasPrefix("zDna"))
        XCTAssertEqual(try Multikey.decode(Multikey.encode(publicKey: p256.publicKey)).publicKey.uncompressed, p256.publicKey.uncompressed)
    }

    func testMalformedMultikeys() throws {
        let valid = Base58.decode("Q3shqwJEJyMBsBXCWyCBpUBMqxcon9oHB7mCvx4sSpMdLJwc")!
        XCTAssertThrowsError(try Multikey.decode("")) { XCTAssertEqual($0 as? Multikey.DecodingError, .notBase58btc) }
        XCTAssertThrowsError(try Multikey.decode("Q3shqwJEJyMBsBXCWyCBpUBMqxcon9oHB7mCvx4sSpMdLJwc")) {
            XCTAssertEqual($0 as? Multikey.DecodingError, .notBase58btc, "missing z prefix")
        }
        XCTAssertThrowsError(try Multikey.decode("z0OIl")) { XCTAssertEqual($0 as? Multikey.DecodingError, .notBase58btc) }
        // Truncated: prefix plus 32 bytes.
        XCTAssertThrowsError(try Multikey.decode("z" + Base58.encode(Array(valid.dropLast())))) {
            XCTAssertEqual($0 as? Multikey.DecodingError, .badKeyLength)
        }
        // Oversized: an extra byte.
        XCTAssertThrowsError(try Multikey.decode("z" + Base58.encode(valid + [0]))) {
            XCTAssertEqual($0 as? Multikey.DecodingError, .badKeyLength)
        }
        // ed25519-pub (0xed 0x01) is a Multikey but not an atproto signing key.
        XCTAssertThrowsError(try Multikey.decode("z" + Base58.encode([0xED, 0x01] + [UInt8](repeating: 1, count: 32)))) {
            XCTAssertEqual($0 as? Multikey.DecodingError, .unknownCodec)
        }
        // A point that is not on the curve: x = 5 has no y on secp256k1 (5^3 + 7 = 132 is not a square mod p).
        let offCurve = [0xE7, 0x01, 0x02] + [UInt8](repeating: 0, count: 31) + [5]
        XCTAssertThrowsError(try Multikey.decode("z" + Base58.encode(offCurve))) {
            XCTAssertEqual($0 as? Multikey.DecodingError, .invalidPoint)
        }
        XCTAssertThrowsError(try Multikey.decode("z" + String(repeating: "2", count: 300))) {
            XCTAssertEqual($0 as? Multikey.DecodingError, .notBase58btc, "oversized")
        }
    }

    func testLegacyRejectsWrongLengths() {
        XCTAssertThrowsError(try Multikey.decodeLegacy("z" + Base58.encode([UInt8](repeating: 4, count: 64)), curve: .secp256k1)) {
            XCTAssertEqual($0 as? Multikey.DecodingError, .badKeyLength)
        }
    }
}

func hex(_ string: String) -> [UInt8]? { Hex.decode(string) }
