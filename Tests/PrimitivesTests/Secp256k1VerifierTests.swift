import Dispatch
@testable import Primitives
import Synchronization
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

    func test_concurrentVerification_fromManyThreads_agrees() throws {
        // The generator table is built lazily by whichever thread verifies first; every thread must see
        // the same, complete table.
        let key = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let messages = (0..<32).map { Array("message \($0)".utf8) }
        let signatures = try messages.map { try key.signature(for: $0, hash: .sha256).raw }
        let publicKey = key.publicKey
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for index in messages.indices {
                let message = messages[(index + worker) % messages.count]
                let signature = signatures[(index + worker) % messages.count]
                if !publicKey.isValidSignature(raw: signature, for: message, hash: .sha256) { failures.add(1, ordering: .relaxed) }
                if publicKey.isValidSignature(raw: signature, for: message + [1], hash: .sha256) { failures.add(1, ordering: .relaxed) }
            }
        }
        XCTAssertEqual(failures.load(ordering: .relaxed), 0)
    }

    func test_aKeyGetsItsTables_onItsSecondVerification_andKeepsDecidingAsOpenSSL() throws {
        let key = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let point = try XCTUnwrap(Secp256k1.AffinePoint(sec1: key.publicKey.uncompressed))
        let budget = Secp256k1.KeyTablesBudget(limit: 10)
        let cache = Secp256k1.KeyTablesCache(budget: budget)
        XCTAssertNil(cache.tables(for: point), "a first use builds nothing")
        XCTAssertEqual(budget.inUse, 0)
        XCTAssertNotNil(cache.tables(for: point), "the second use builds the tables")
        XCTAssertEqual(budget.inUse, 1)
        XCTAssertNotNil(cache.tables(for: point))
        XCTAssertEqual(budget.inUse, 1)
        // Through the public key: every use from the second on takes the tables' path.
        let publicKey = key.publicKey
        for round in 0..<20 {
            let message = SecureRandom.bytes(round + 1)
            var raw = try key.signature(for: message, hash: .sha256).raw
            if round.isMultiple(of: 3) { raw[Int.random(in: 0..<64)] ^= 1 }
            XCTAssertEqual(publicKey.isValidSignature(raw: raw, for: message, hash: .sha256),
                           publicKey.openSSLIsValidSignature(raw: raw, for: message, hash: .sha256), "round \(round)")
            XCTAssertEqual(publicKey.isValidSignature(raw: raw, for: message, hash: .sha256), !round.isMultiple(of: 3))
        }
        XCTAssertNotNil(publicKey.secp256k1Tables?.tables(for: point))
    }

    func test_keyTablesBudget_capsTheKeysHoldingTables_andIsGivenBackWhenAKeyGoes() throws {
        let budget = Secp256k1.KeyTablesBudget(limit: 1)
        let first = try XCTUnwrap(Secp256k1.AffinePoint(sec1: ECDSAPrivateKey.generate(curve: .secp256k1).publicKey.uncompressed))
        let second = try XCTUnwrap(Secp256k1.AffinePoint(sec1: ECDSAPrivateKey.generate(curve: .secp256k1).publicKey.uncompressed))
        var holder: Secp256k1.KeyTablesCache? = Secp256k1.KeyTablesCache(budget: budget)
        _ = holder?.tables(for: first)
        XCTAssertNotNil(holder?.tables(for: first))
        let refused = Secp256k1.KeyTablesCache(budget: budget)
        _ = refused.tables(for: second)
        XCTAssertNil(refused.tables(for: second), "over the budget")
        XCTAssertNil(refused.tables(for: second), "and for good")
        XCTAssertEqual(budget.inUse, 1)
        holder = nil
        XCTAssertEqual(budget.inUse, 0, "a key's tables go with it")
        let later = Secp256k1.KeyTablesCache(budget: budget)
        _ = later.tables(for: second)
        XCTAssertNotNil(later.tables(for: second))
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

    /// ~2000 (key, message, signature) triples, a third of them well-formed and the rest mutated in
    /// one of many ways: the native verdict must equal OpenSSL's on every one, raw and DER.
    func test_differential_nativeMatchesOpenSSL() throws {
        let keys = try (0..<16).map { _ in try ECDSAPrivateKey.generate(curve: .secp256k1) }
        let n = Scalar.n
        for round in 0..<2000 {
            let signer = keys[round % keys.count]
            var verifier = signer.publicKey
            var message = SecureRandom.bytes(Int.random(in: 0..<200))
            let signature = try signer.signature(for: message, hash: .sha256, lowS: Bool.random())
            var raw = signature.raw
            var der = signature.der
            let r = Scalar(bigEndian: raw, at: 0), s = Scalar(bigEndian: raw, at: 32)
            // Untouched, the other S of the pair, and a DER-only mutation leave the raw signature valid.
            let rawStaysValid = [0, 1, 2, 3, 4, 8, 14].contains(round % 15)
            switch round % 15 {
            case 0, 1, 2, 3, 4: break
            case 5: raw[Int.random(in: 0..<64)] ^= UInt8(1 << Int.random(in: 0..<8))
            case 6: message.append(UInt8.random(in: 0...255))
            case 7: verifier = keys[(round + 1) % keys.count].publicKey
            case 8: raw = Array(raw[..<32]) + s.negated.bigEndianBytes
            case 9: raw = r.addingRaw(n).value.bigEndianBytes + Array(raw[32...])
            case 10: raw = Array(raw[..<32]) + s.addingRaw(n).value.bigEndianBytes
            case 11:
                let special = [Scalar.zero, .one, n, n.subtractingRaw(.one).value, Scalar(.max, .max, .max, .max)]
                if Bool.random() { raw = special.randomElement()!.bigEndianBytes + Array(raw[32...]) }
                else { raw = Array(raw[..<32]) + special.randomElement()!.bigEndianBytes }
            case 12: raw = SecureRandom.bytes(64)
            case 13: raw = Bool.random() ? Array(raw.dropLast(Int.random(in: 1...3))) : raw + [0]
            default: der[Int.random(in: 0..<der.count)] ^= UInt8(1 << Int.random(in: 0..<8))
            }
            let native = verifier.isValidSignature(raw: raw, for: message, hash: .sha256)
            XCTAssertEqual(native, verifier.openSSLIsValidSignature(raw: raw, for: message, hash: .sha256), "round \(round) raw")
            XCTAssertEqual(verifier.isValidSignature(der: der, for: message, hash: .sha256),
                           verifier.openSSLIsValidSignature(der: der, for: message, hash: .sha256), "round \(round) DER")
            XCTAssertEqual(native, rawStaysValid, "round \(round)")
        }
    }

    func test_nonCanonicalDER_isRejected_likeOpenSSL() throws {
        let key = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let message = Array("der".utf8)
        let raw = try key.signature(for: message, hash: .sha256).raw
        let r = Array(raw[..<32]), s = Array(raw[32...])
        func integer(_ bytes: [UInt8]) -> [UInt8] { [0x02, UInt8(bytes.count)] + bytes }
        func sequence(_ body: [UInt8]) -> [UInt8] { [0x30, UInt8(body.count)] + body }
        let minimal = try ECDSA.der(fromRaw: raw, curve: .secp256k1)
        let padded = sequence(integer([0, 0] + r) + integer([0, 0] + s))
        let longForm = [0x30, 0x81, UInt8(minimal.count - 2)] + minimal[2...]
        for (name, der) in [("extra leading zeros", padded), ("long-form length", longForm),
                            ("trailing byte", minimal + [0]), ("truncated", Array(minimal.dropLast()))] {
            XCTAssertFalse(key.publicKey.isValidSignature(der: der, for: message, hash: .sha256), name)
            XCTAssertFalse(key.publicKey.openSSLIsValidSignature(der: der, for: message, hash: .sha256), name)
        }
        XCTAssertTrue(key.publicKey.isValidSignature(der: minimal, for: message, hash: .sha256))
    }

    /// A signature whose R has x ≥ n, so only the r + n comparison accepts it. Such R are rare (about
    /// 2^-128 of points), so the key is built backwards from R: Q = u2⁻¹·(R − u1·G), s = r·u2⁻¹, e = u1·s.
    func test_xCoordinateAboveN_isAccepted_viaRPlusN() throws {
        var x = Scalar.n
        var y: Secp256k1.FieldElement?
        while y == nil {
            x = x.addingRaw(.one).value
            let fx = try XCTUnwrap(Secp256k1.FieldElement(bigEndian: x.bigEndianBytes))
            y = (fx.squared * fx + Secp256k1.AffinePoint.b).squareRoot
        }
        let bigR = Secp256k1.AffinePoint(x: try XCTUnwrap(Secp256k1.FieldElement(bigEndian: x.bigEndianBytes)), y: y!)
        let r = x.subtractingRaw(Scalar.n).value
        let u1 = Scalar(bigEndian: SecureRandom.bytes(32)).reducedModN
        let u2 = Scalar(bigEndian: SecureRandom.bytes(32)).reducedModN
        let u2Inverse = Scalar.montgomeryProduct(u2.inverseMontgomery, .one)
        let q = try XCTUnwrap(Secp256k1Reference.linearCombination(
            u1: u1.times(montgomery: u2Inverse.montgomery).negated.bigEndianBytes,
            u2: u2Inverse.bigEndianBytes, q: bigR.sec1(compressed: false)))
        let key = try ECDSAPublicKey(curve: .secp256k1, sec1: q)
        let s = r.times(montgomery: u2Inverse.montgomery)
        let digest = u1.times(montgomery: s.montgomery).bigEndianBytes
        let point = try XCTUnwrap(Secp256k1.AffinePoint(sec1: q))

        let raw = r.bigEndianBytes + s.bigEndianBytes
        XCTAssertTrue(Secp256k1.isValidSignature(raw: raw, digest: digest, publicKey: point))
        XCTAssertTrue(Secp256k1Reference.verifyDigest(key: key, der: try ECDSA.der(fromRaw: raw, curve: .secp256k1), digest: digest))
        let wrong = r.addingRaw(.one).value.bigEndianBytes + s.bigEndianBytes
        XCTAssertFalse(Secp256k1.isValidSignature(raw: wrong, digest: digest, publicKey: point))
        XCTAssertFalse(Secp256k1Reference.verifyDigest(key: key, der: try ECDSA.der(fromRaw: wrong, curve: .secp256k1), digest: digest))
    }

    func test_digests_matchOpenSSL_forArbitraryAndOversizedValues() throws {
        let signer = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let point = try XCTUnwrap(Secp256k1.AffinePoint(sec1: signer.publicKey.uncompressed))
        // Digests at or above n reduce mod n; 48- and 64-byte digests keep their leftmost 32 bytes.
        for digest in [[UInt8](repeating: 0xFF, count: 32), Scalar.n.bigEndianBytes, [UInt8](repeating: 0, count: 32),
                       SecureRandom.bytes(48), SecureRandom.bytes(64), SecureRandom.bytes(20)] {
            let raw = SecureRandom.bytes(64)
            let der = try ECDSA.der(fromRaw: raw, curve: .secp256k1)
            XCTAssertEqual(Secp256k1.isValidSignature(raw: raw, digest: digest, publicKey: point),
                           Secp256k1Reference.verifyDigest(key: signer.publicKey, der: der, digest: digest))
        }
        // A real signature over e, checked against the digest e + n (fits in 256 bits for e < 2^128),
        // which OpenSSL reduces back to e.
        let e = Scalar(.random(in: 0 ... .max), .random(in: 0 ... .max), 0, 0)
        let shifted = e.addingRaw(Scalar.n)
        XCTAssertEqual(shifted.carry, 0)
        let nonce = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let r = Scalar(bigEndian: try XCTUnwrap(Secp256k1.AffinePoint(sec1: nonce.publicKey.uncompressed)).x.bigEndianBytes).reducedModN
        let kInverse = Scalar.montgomeryProduct(Scalar(bigEndian: nonce.scalar).inverseMontgomery, .one)
        let d = Scalar(bigEndian: signer.scalar)
        let s = kInverse.times(montgomery: (e + r.times(montgomery: d.montgomery)).montgomery)
        let raw = r.bigEndianBytes + s.bigEndianBytes
        XCTAssertTrue(Secp256k1.isValidSignature(raw: raw, digest: e.bigEndianBytes, publicKey: point))
        XCTAssertTrue(Secp256k1.isValidSignature(raw: raw, digest: shifted.value.bigEndianBytes, publicKey: point))
        XCTAssertTrue(Secp256k1Reference.verifyDigest(
            key: signer.publicKey, der: try ECDSA.der(fromRaw: raw, curve: .secp256k1), digest: shifted.value.bigEndianBytes))
        XCTAssertFalse(Secp256k1.isValidSignature(raw: raw, digest: e.addingRaw(.one).value.bigEndianBytes, publicKey: point))
    }
}
