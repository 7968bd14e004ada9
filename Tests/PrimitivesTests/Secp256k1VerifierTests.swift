@testable import Primitives
import XCTest

final class Secp256k1VerifierTests: XCTestCase {
    private typealias Scalar = Secp256k1.Scalar

    func test_randomSignatures_fromOpenSSL_verifyNatively() throws {
        for round in 0..<1000 {
            let key = try ECDSAPrivateKey.generate(curve: .secp256k1)
            let message = SecureRandom.bytes(round % 97)
            let signature = try key.signature(for: message, hash: .sha256, lowS: round.isMultiple(of: 2))
            XCTAssertTrue(key.publicKey.isValidSignature(raw: signature.raw, for: message, hash: .sha256), "round \(round)")
            XCTAssertTrue(key.publicKey.isValidSignature(der: signature.der, for: message, hash: .sha256), "round \(round)")
            if round.isMultiple(of: 10) {
                XCTAssertFalse(key.publicKey.isValidSignature(raw: signature.raw, for: message + [0], hash: .sha256))
            }
        }
    }

    func test_sha384AndSHA512Digests_useTheirLeftmost256Bits() throws {
        let key = try ECDSAPrivateKey.generate(curve: .secp256k1)
        for hash in [HashAlgorithm.sha384, .sha512] {
            for _ in 0..<20 {
                let message = SecureRandom.bytes(40)
                let signature = try key.signature(for: message, hash: hash, lowS: false)
                XCTAssertTrue(key.publicKey.isValidSignature(raw: signature.raw, for: message, hash: hash))
                XCTAssertTrue(key.publicKey.isValidSignature(der: signature.der, for: message, hash: hash))
                XCTAssertFalse(key.publicKey.isValidSignature(raw: signature.raw, for: message, hash: .sha256))
            }
        }
    }

    func test_tamperedSignatures_areRejected_likeOpenSSL() throws {
        let key = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let publicKey = key.publicKey
        let message = Array("service-auth".utf8)
        let raw = try key.signature(for: message, hash: .sha256).raw
        let n = Scalar.n.bigEndianBytes
        let zero = [UInt8](repeating: 0, count: 32)
        let r = Array(raw[..<32])
        let s = Array(raw[32...])
        var cases: [(String, [UInt8])] = [
            ("r = 0", zero + s), ("s = 0", r + zero), ("r = n", n + s), ("s = n", r + n),
            ("r = n + r", Scalar(bigEndian: r).addingRaw(Scalar.n).value.bigEndianBytes + s),
            ("r = 2^256 − 1", [UInt8](repeating: 0xFF, count: 32) + s),
            ("s = 2^256 − 1", r + [UInt8](repeating: 0xFF, count: 32)),
            ("short", Array(raw.dropLast())), ("long", raw + [0]), ("empty", []),
            ("r and s swapped", s + r),
        ]
        for index in [0, 17, 31, 32, 50, 63] {
            var flipped = raw
            flipped[index] ^= 0x40
            cases.append(("bit flip at \(index)", flipped))
        }
        for (name, candidate) in cases {
            XCTAssertFalse(publicKey.isValidSignature(raw: candidate, for: message, hash: .sha256), name)
            XCTAssertFalse(publicKey.openSSLIsValidSignature(raw: candidate, for: message, hash: .sha256), name)
        }
        XCTAssertTrue(publicKey.isValidSignature(raw: raw, for: message, hash: .sha256))
        let other = try ECDSAPrivateKey.generate(curve: .secp256k1).publicKey
        XCTAssertFalse(other.isValidSignature(raw: raw, for: message, hash: .sha256), "wrong key")
    }

    func test_highS_verifies_andLowSPolicyIsUnchanged() throws {
        let key = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let message = Array("high-s".utf8)
        let low = try key.signature(for: message, hash: .sha256).raw
        let high = Array(low[..<32]) + Scalar(bigEndian: low, at: 32).negated.bigEndianBytes
        XCTAssertTrue(ECDSA.isLowS(raw: low, curve: .secp256k1))
        XCTAssertFalse(ECDSA.isLowS(raw: high, curve: .secp256k1))
        XCTAssertTrue(key.publicKey.isValidSignature(raw: high, for: message, hash: .sha256))
        XCTAssertTrue(key.publicKey.openSSLIsValidSignature(raw: high, for: message, hash: .sha256))
    }
}
