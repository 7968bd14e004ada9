import Primitives
import XCTest

final class DiffieHellmanTests: XCTestCase {
    func test_x25519_matchesRFC7748Section6_1() throws {
        let alice = try hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
        let bobPublic = try hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        XCTAssertEqual(try X25519.publicKey(privateKey: alice), try hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"))
        XCTAssertEqual(try X25519.sharedSecret(privateKey: alice, publicKey: bobPublic),
                       try hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"))
        XCTAssertThrowsError(try X25519.sharedSecret(privateKey: alice, publicKey: [UInt8](repeating: 0, count: 32))) {
            XCTAssertEqual($0 as? CryptoError, .invalidSharedSecret)
        }
        XCTAssertThrowsError(try X25519.publicKey(privateKey: [1]))
        XCTAssertThrowsError(try X25519.sharedSecret(privateKey: alice, publicKey: [1, 2]))
    }

    func test_x448_matchesRFC7748Section6_2() throws {
        let alice = try hex("9a8f4925d1519f5775cf46b04b5800d4ee9ee8bae8bc5565d498c28dd9c9baf574a9419744897391006382a6f127ab1d9ac2d8c0a598726b")
        let bobPublic = try hex("3eb7a829b0cd20f5bcfc0b599b6feccf6da4627107bdb0d4f345b43027d8b972fc3e34fb4232a13ca706dcb57aec3dae07bdc1c67bf33609")
        XCTAssertEqual(try X448.publicKey(privateKey: alice), try hex(
            "9b08f7cc31b7e3e67d22d5aea121074a273bd2b83de09c63faa73d2c22c5d9bbc836647241d953d40c5b12da88120d53177f80e532c41fa0"))
        XCTAssertEqual(try X448.sharedSecret(privateKey: alice, publicKey: bobPublic), try hex(
            "07fff4181ac6cc95ec1c16a94a0f74d12da232ce40a77552281d282bb60c0b56fd2464c335543936521c24403085d59a449a5037514a879d"))
        XCTAssertThrowsError(try X448.sharedSecret(privateKey: alice, publicKey: [UInt8](repeating: 0, count: 56)))
        XCTAssertThrowsError(try X448.publicKey(privateKey: [UInt8](repeating: 1, count: 32)))
    }

    func test_ecdh_agreesBothWays_onNISTCurves() throws {
        for curve in [ECCurve.p256, .p384, .p521] {
            let a = try ECDSAPrivateKey.generate(curve: curve)
            let b = try ECDSAPrivateKey.generate(curve: curve)
            XCTAssertEqual(try ECDH.publicKey(curve: curve, privateKey: a.scalar), a.publicKey.uncompressed)
            let ab = try ECDH.sharedSecret(curve: curve, privateKey: a.scalar, publicKey: b.publicKey.uncompressed)
            let ba = try ECDH.sharedSecret(curve: curve, privateKey: b.scalar, publicKey: a.publicKey.compressed)
            XCTAssertEqual(ab, ba)
            XCTAssertEqual(ab.count, curve.scalarSize)
            var offCurve = b.publicKey.uncompressed
            offCurve[offCurve.count - 1] ^= 1
            XCTAssertThrowsError(try ECDH.sharedSecret(curve: curve, privateKey: a.scalar, publicKey: offCurve))
            XCTAssertThrowsError(try ECDH.sharedSecret(curve: curve, privateKey: [UInt8](repeating: 0, count: curve.scalarSize),
                                                       publicKey: b.publicKey.uncompressed))
            XCTAssertTrue(ECDH.isValidPrivateKey(curve: curve, a.scalar))
            XCTAssertFalse(ECDH.isValidPrivateKey(curve: curve, [UInt8](repeating: 0xff, count: curve.scalarSize)))
        }
    }
}
