import Basics
import Primitives
import XCTest

final class ECDSATests: XCTestCase {
    private func hash(for curve: ECCurve) -> HashAlgorithm {
        switch curve {
        case .p256, .secp256k1: .sha256
        case .p384: .sha384
        case .p521: .sha512
        }
    }

    func test_signVerify_roundTripsRawAndDER_onEveryCurve() throws {
        let message = Array("catbird".utf8)
        for curve in ECCurve.allCases {
            let key = try ECDSAPrivateKey.generate(curve: curve)
            let signature = try key.signature(for: message, hash: hash(for: curve))
            XCTAssertEqual(signature.raw.count, 2 * curve.scalarSize, "\(curve)")
            XCTAssertTrue(key.publicKey.isValidSignature(raw: signature.raw, for: message, hash: hash(for: curve)), "\(curve)")
            XCTAssertTrue(key.publicKey.isValidSignature(der: signature.der, for: message, hash: hash(for: curve)), "\(curve)")
            XCTAssertTrue(ECDSA.isLowS(raw: signature.raw, curve: curve), "\(curve)")
        }
    }

    func test_verify_rejectsTamperedMessageSignatureAndWrongHash() throws {
        for curve in ECCurve.allCases {
            let key = try ECDSAPrivateKey.generate(curve: curve)
            let message = Array("hello".utf8)
            let signature = try key.signature(for: message, hash: hash(for: curve))
            XCTAssertFalse(key.publicKey.isValidSignature(raw: signature.raw, for: Array("hellp".utf8), hash: hash(for: curve)))
            let otherHash: HashAlgorithm = hash(for: curve) == .sha256 ? .sha512 : .sha256
            XCTAssertFalse(key.publicKey.isValidSignature(raw: signature.raw, for: message, hash: otherHash))
            var flipped = signature.raw
            flipped[3] ^= 0x01
            XCTAssertFalse(key.publicKey.isValidSignature(raw: flipped, for: message, hash: hash(for: curve)))
            XCTAssertFalse(key.publicKey.isValidSignature(der: signature.der + [0], for: message, hash: hash(for: curve)))
            XCTAssertFalse(key.publicKey.isValidSignature(der: Array(signature.der.dropLast()), for: message, hash: hash(for: curve)))
            XCTAssertFalse(key.publicKey.isValidSignature(raw: Array(signature.raw.dropLast()), for: message, hash: hash(for: curve)))
            XCTAssertFalse(key.publicKey.isValidSignature(der: [], for: message, hash: hash(for: curve)))
            let other = try ECDSAPrivateKey.generate(curve: curve)
            XCTAssertFalse(other.publicKey.isValidSignature(raw: signature.raw, for: message, hash: hash(for: curve)))
        }
    }

    func test_highS_isDetected_andStillVerifies_whileLowSNormalises() throws {
        // Signatures are randomised, so about half of the unnormalised ones are high-S.
        let message = Array("low-s".utf8)
        for curve in ECCurve.allCases {
            let key = try ECDSAPrivateKey.generate(curve: curve)
            var sawHigh = false
            for _ in 0..<64 where !sawHigh {
                let raw = try key.signature(for: message, hash: hash(for: curve), lowS: false).raw
                if !ECDSA.isLowS(raw: raw, curve: curve) {
                    sawHigh = true
                    XCTAssertTrue(key.publicKey.isValidSignature(raw: raw, for: message, hash: hash(for: curve)))
                }
            }
            XCTAssertTrue(sawHigh, "\(curve): no high-S signature in 64 draws")
            for _ in 0..<16 {
                let raw = try key.signature(for: message, hash: hash(for: curve)).raw
                XCTAssertTrue(ECDSA.isLowS(raw: raw, curve: curve))
            }
        }
        XCTAssertFalse(ECDSA.isLowS(raw: [1, 2, 3], curve: .p256))
    }

    func test_publicKey_compressedAndUncompressedAgree() throws {
        for curve in ECCurve.allCases {
            let key = try ECDSAPrivateKey.generate(curve: curve).publicKey
            XCTAssertEqual(key.uncompressed.count, curve.uncompressedSize)
            XCTAssertEqual(key.compressed.count, curve.compressedSize)
            let fromCompressed = try ECDSAPublicKey(curve: curve, sec1: key.compressed)
            XCTAssertEqual(fromCompressed.uncompressed, key.uncompressed)
            let fromUncompressed = try ECDSAPublicKey(curve: curve, sec1: key.uncompressed)
            XCTAssertEqual(fromUncompressed.compressed, key.compressed)
        }
    }

    func test_invalidPoints_areRejected() throws {
        for curve in ECCurve.allCases {
            let valid = try ECDSAPrivateKey.generate(curve: curve).publicKey.uncompressed
            var offCurve = valid
            offCurve[offCurve.count - 1] ^= 0x01
            XCTAssertThrowsError(try ECDSAPublicKey(curve: curve, sec1: offCurve), "\(curve) off-curve")
            XCTAssertThrowsError(try ECDSAPublicKey(curve: curve, sec1: [0x00]), "\(curve) infinity")
            XCTAssertThrowsError(try ECDSAPublicKey(curve: curve, sec1: []), "\(curve) empty")
            XCTAssertThrowsError(try ECDSAPublicKey(curve: curve, sec1: Array(valid.dropLast())), "\(curve) truncated")
            XCTAssertThrowsError(try ECDSAPublicKey(curve: curve, sec1: valid + [0]), "\(curve) oversized")
            var badPrefix = valid
            badPrefix[0] = 0x05
            XCTAssertThrowsError(try ECDSAPublicKey(curve: curve, sec1: badPrefix), "\(curve) prefix")
            // x = p-1 style garbage: all 0xff is not a field element.
            let garbage = [UInt8(0x02)] + [UInt8](repeating: 0xff, count: curve.scalarSize)
            XCTAssertThrowsError(try ECDSAPublicKey(curve: curve, sec1: garbage), "\(curve) x ≥ p")
        }
        // A P-256 point is not a P-384 key.
        let p256 = try ECDSAPrivateKey.generate(curve: .p256).publicKey.uncompressed
        XCTAssertThrowsError(try ECDSAPublicKey(curve: .p384, sec1: p256))
    }

    func test_privateScalar_isPaddedAndRangeChecked() throws {
        let key = try ECDSAPrivateKey.generate(curve: .p521)
        let scalar = key.scalar
        XCTAssertEqual(scalar.count, 66)
        // P-521 scalars often arrive as 65 bytes when the top byte is zero.
        var short = scalar
        while short.first == 0 { short.removeFirst() }
        let again = try ECDSAPrivateKey(curve: .p521, scalar: short)
        XCTAssertEqual(again.publicKey.uncompressed, key.publicKey.uncompressed)
        XCTAssertEqual(again.scalar, scalar)

        XCTAssertThrowsError(try ECDSAPrivateKey(curve: .p256, scalar: [UInt8](repeating: 0, count: 32)))
        XCTAssertThrowsError(try ECDSAPrivateKey(curve: .p256, scalar: []))
        XCTAssertThrowsError(try ECDSAPrivateKey(curve: .p256, scalar: [UInt8](repeating: 0xff, count: 32)))
        XCTAssertThrowsError(try ECDSAPrivateKey(curve: .p256, scalar: [UInt8](repeating: 0x11, count: 33)))
        let one = try ECDSAPrivateKey(curve: .p256, scalar: [1])
        XCTAssertEqual(one.scalar, [UInt8](repeating: 0, count: 31) + [1])
    }

    func test_knownPublicKey_forScalarOne_isTheGenerator() throws {
        // SEC 2 §2.4.2: the P-256 base point G.
        let gx = try hex("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")
        let gy = try hex("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")
        let key = try ECDSAPrivateKey(curve: .p256, scalar: [1])
        XCTAssertEqual(key.publicKey.uncompressed, [0x04] + gx + gy)
    }
}

func hex(_ string: String) throws -> [UInt8] {
    guard let bytes = Hex.decode(string) else { throw CryptoError.invalidParameter("bad hex") }
    return bytes
}
