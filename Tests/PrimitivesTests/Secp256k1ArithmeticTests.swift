@testable import Primitives
import XCTest

/// Field (mod p) and scalar (mod n) arithmetic against OpenSSL's BIGNUMs and known constants.
final class Secp256k1ArithmeticTests: XCTestCase {
    private typealias Field = Secp256k1.FieldElement
    private typealias Scalar = Secp256k1.Scalar
    private let reference = Secp256k1Reference.self

    /// Random values plus the edges: 0, 1, 2, p − 1 (or n − 1) and values just below the modulus.
    private func samples(below modulus: [UInt8], count: Int) -> [[UInt8]] {
        let one = [UInt8](repeating: 0, count: 31) + [1]
        var out = [[UInt8](repeating: 0, count: 32), one, reference.modAdd(one, one, modulus),
                   reference.modSub([UInt8](repeating: 0, count: 32), one, modulus),
                   reference.modSub([UInt8](repeating: 0, count: 32), reference.modAdd(one, one, modulus), modulus)]
        while out.count < count {
            let candidate = SecureRandom.bytes(32)
            if candidate.lexicographicallyPrecedes(modulus) { out.append(candidate) }
        }
        return out
    }

    private func field(_ bytes: [UInt8]) -> Field { Field(bigEndian: bytes)! }

    func test_field_addSubMul_matchOpenSSL() {
        let values = samples(below: reference.p, count: 200)
        for (a, b) in zip(values, values.shuffled()) {
            XCTAssertEqual((field(a) * field(b)).bigEndianBytes, reference.modMul(a, b, reference.p))
            XCTAssertEqual(field(a).squared.bigEndianBytes, reference.modMul(a, a, reference.p))
            XCTAssertEqual((field(a) + field(b)).bigEndianBytes, reference.modAdd(a, b, reference.p))
            XCTAssertEqual((field(a) - field(b)).bigEndianBytes, reference.modSub(a, b, reference.p))
        }
    }

    func test_field_unreducedLimbs_behaveAsTheirResidue() {
        // Limbs in [p, 2^256) are legal intermediate values: p + 5 must act as 5.
        let pPlus5 = Field(Field.p.l0 &+ 5, .max, .max, .max)
        XCTAssertEqual(pPlus5.bigEndianBytes, Field(5).bigEndianBytes)
        XCTAssertTrue(Field.p.isZero)
        XCTAssertTrue(pPlus5.isEqual(to: Field(5)))
        let allOnes = Field(.max, .max, .max, .max)
        // 2^256 − 1 ≡ c − 1 (mod p).
        XCTAssertEqual(allOnes.bigEndianBytes, Field(Field.c - 1).bigEndianBytes)
        XCTAssertEqual((allOnes + allOnes).bigEndianBytes, Field(2 * (Field.c - 1)).bigEndianBytes)
        XCTAssertEqual((Field.zero - allOnes).bigEndianBytes, (-Field(Field.c - 1)).bigEndianBytes)
        XCTAssertEqual((allOnes * allOnes).bigEndianBytes, (Field(Field.c - 1) * Field(Field.c - 1)).bigEndianBytes)
        XCTAssertEqual((-Field.zero).bigEndianBytes, Field.zero.bigEndianBytes)
    }

    func test_field_inverseAndSquareRoot_matchOpenSSL() {
        for a in samples(below: reference.p, count: 60) where a != [UInt8](repeating: 0, count: 32) {
            let inverse = field(a).inverse
            XCTAssertEqual(inverse.bigEndianBytes, reference.modInverse(a, reference.p))
            XCTAssertEqual((inverse * field(a)).bigEndianBytes, Field.one.bigEndianBytes)
            let root = field(a).squareRoot
            let expected = reference.modSqrt(a)
            XCTAssertEqual(root != nil, expected != nil, "residuosity of \(a)")
            if let root, let expected {
                // Either square root is fine; the two are negatives of each other.
                XCTAssertTrue(root.bigEndianBytes == expected || (-root).bigEndianBytes == expected)
                XCTAssertEqual(root.squared.bigEndianBytes, a)
            }
        }
        XCTAssertEqual(Field.zero.inverse.bigEndianBytes, Field.zero.bigEndianBytes)
    }

    func test_field_parsing_rejectsValuesAtOrAboveP() {
        XCTAssertNil(Field(bigEndian: reference.p))
        XCTAssertNil(Field(bigEndian: [UInt8](repeating: 0xFF, count: 32)))
        XCTAssertNil(Field(bigEndian: [UInt8](repeating: 0, count: 31)), "short")
        let pMinus1 = reference.modSub([UInt8](repeating: 0, count: 32), [UInt8](repeating: 0, count: 31) + [1], reference.p)
        XCTAssertEqual(Field(bigEndian: pMinus1)?.bigEndianBytes, pMinus1)
        let random = SecureRandom.bytes(31)
        XCTAssertEqual(Field(bigEndian: [0] + random)?.bigEndianBytes, [0] + random)
    }

    func test_scalar_montgomeryConstants_areWhatTheyClaim() {
        XCTAssertEqual(Scalar.n.bigEndianBytes, reference.n)
        XCTAssertEqual(Scalar.n.l0 &* Scalar.nPrime, .max, "n·n' ≡ −1 mod 2^64")
        // rSquared·1 in Montgomery form is R = 2^256 mod n, and R·R⁻¹ (Montgomery) is 1.
        let twoTo256 = [1] + [UInt8](repeating: 0, count: 32)
        XCTAssertEqual(Scalar.one.montgomery.bigEndianBytes, reference.modSub([UInt8](repeating: 0, count: 32), reference.n, twoTo256))
        XCTAssertEqual(Scalar.montgomeryProduct(Scalar.one.montgomery, Scalar.one), Scalar.one)
        let lambda = Secp256k1.Endomorphism.lambda.bigEndianBytes
        XCTAssertEqual(reference.modMul(reference.modMul(lambda, lambda, reference.n), lambda, reference.n),
                       Scalar.one.bigEndianBytes, "λ³ = 1 mod n")
        let beta = Secp256k1.Endomorphism.beta
        XCTAssertTrue((beta.squared * beta).isEqual(to: .one), "β³ = 1 mod p")
        XCTAssertFalse(beta.isEqual(to: .one))
        let minusLambda = reference.modSub([UInt8](repeating: 0, count: 32), lambda, reference.n)
        XCTAssertEqual(Secp256k1.Endomorphism.minusLambdaMontgomery, Scalar(bigEndian: minusLambda).montgomery)
        XCTAssertEqual(Scalar.pMinusN.bigEndianBytes, reference.modSub(reference.p, reference.n, reference.p))
    }

    func test_scalar_productsInversesAndSums_matchOpenSSL() {
        let values = samples(below: reference.n, count: 200)
        for (a, b) in zip(values, values.shuffled()) {
            let x = Scalar(bigEndian: a), y = Scalar(bigEndian: b)
            XCTAssertEqual(x.times(montgomery: y.montgomery).bigEndianBytes, reference.modMul(a, b, reference.n))
            XCTAssertEqual((x + y).bigEndianBytes, reference.modAdd(a, b, reference.n))
            XCTAssertEqual(x.negated.bigEndianBytes, reference.modSub([UInt8](repeating: 0, count: 32), a, reference.n))
            if !x.isZero {
                let inverse = Scalar.montgomeryProduct(x.inverseMontgomery, .one)
                XCTAssertEqual(inverse.bigEndianBytes, reference.modInverse(a, reference.n))
            }
        }
    }

    func test_scalar_inverse_ofPowersOfTwoAndEdges_matchesOpenSSL() {
        // Powers of two (long runs of zero bits for the divsteps), runs of ones, small values, and
        // values next to n.
        var values: [Scalar] = []
        for bit in 0..<256 {
            var limbs: [UInt64] = [0, 0, 0, 0]
            limbs[bit / 64] = 1 << UInt64(bit % 64)
            values.append(Scalar(limbs[0], limbs[1], limbs[2], limbs[3]).reducedModN)
        }
        values += [Scalar.n.subtractingRaw(.one).value, Scalar.n.subtractingRaw(Scalar(2, 0, 0, 0)).value, Secp256k1.Scalar.rModN]
        values += (1...20).map { Scalar(UInt64($0), 0, 0, 0) } + (1..<256).map { bits in
            // 2^bits − 1
            var limbs: [UInt64] = [0, 0, 0, 0]
            for bit in 0..<bits { limbs[bit / 64] |= 1 << UInt64(bit % 64) }
            return Scalar(limbs[0], limbs[1], limbs[2], limbs[3]).reducedModN
        }
        values += (1...20).map { Scalar.n.subtractingRaw(Scalar(UInt64($0), 0, 0, 0)).value }
        for value in values {
            let inverse = Scalar.montgomeryProduct(value.inverseMontgomery, .one)
            XCTAssertEqual(inverse.bigEndianBytes, reference.modInverse(value.bigEndianBytes, reference.n))
        }
        XCTAssertEqual(Scalar.zero.inverseMontgomery, .zero)
        XCTAssertEqual(Scalar.n.inverseMontgomery, .zero, "not a valid scalar")
    }

    func test_scalar_inverse_timesItself_isOne_forManyRandomValues() {
        // Independent of OpenSSL: x · x⁻¹ ≡ 1 (mod n), over more values than the comparisons above.
        let one = Scalar(1, 0, 0, 0)
        for sample in samples(below: reference.n, count: 3000) {
            let x = Scalar(bigEndian: sample)
            guard !x.isZero else { continue }
            XCTAssertEqual(x.times(montgomery: x.inverseMontgomery), one)
        }
    }

    func test_scalar_rangeChecks_andReduction() {
        let n = Scalar.n
        XCTAssertFalse(Scalar.zero.isValidNonZero)
        XCTAssertFalse(n.isValidNonZero)
        XCTAssertTrue(n.subtractingRaw(.one).value.isValidNonZero)
        XCTAssertTrue(Scalar.one.isValidNonZero)
        XCTAssertFalse(Scalar(.max, .max, .max, .max).isValidNonZero)
        XCTAssertEqual(n.reducedModN, .zero)
        XCTAssertEqual(Scalar(.max, .max, .max, .max).reducedModN.bigEndianBytes,
                       reference.modSub([UInt8](repeating: 0xFF, count: 32), reference.n, [1] + [UInt8](repeating: 0, count: 32)))
        XCTAssertEqual(Scalar(bigEndian: reference.n).addingRaw(.one).value.reducedModN, .one)
    }

    func test_glvSplit_recombines_andHalvesAreShort() {
        var values = samples(below: reference.n, count: 300).map { Scalar(bigEndian: $0) }
        values += [Secp256k1.Endomorphism.lambda, Secp256k1.Endomorphism.lambda.negated, Scalar(0, 0, 1, 0), Scalar(0, 0, 0, 1 << 63)]
        let lambda = Secp256k1.Endomorphism.lambda.montgomery
        for k in values {
            let (k1, k2) = Secp256k1.Endomorphism.split(k)
            XCTAssertLessThanOrEqual(k1.magnitude.bitLength, 128)
            XCTAssertLessThanOrEqual(k2.magnitude.bitLength, 128)
            let signed1 = k1.isNegative ? k1.magnitude.negated : k1.magnitude
            let signed2 = k2.isNegative ? k2.magnitude.negated : k2.magnitude
            XCTAssertEqual(signed1 + signed2.times(montgomery: lambda), k, "k1 + λ·k2 = k")
        }
    }

    func test_wnafOfA32BitPart_fitsItsSpan_andMatchesTheScalarForm() {
        // Every value whose bits could carry furthest (runs of ones, the top bit set) and random ones.
        var parts: [UInt64] = [0, 1, 2, 3, 0xFFFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0x7FFF_FFFF, 0xF800_0000, 0xFFC0_0000]
        parts += (1...32).map { (UInt64(1) << UInt64($0)) - 1 } + (0..<32).map { UInt64(1) << UInt64($0) }
        parts += (0..<200).map { _ in UInt64.random(in: 0...0xFFFF_FFFF) }
        for width in [2, 5, 10, 15] {
            for part in parts {
                var digits = [Int16](repeating: 0, count: Secp256k1.WNAF.partSpan)
                let count = Secp256k1.WNAF.writeDigits(of: part, width: width, into: &digits, at: 0)
                let reference = Secp256k1.WNAF(Scalar(part, 0, 0, 0), width: width)
                XCTAssertEqual(count, reference.count, "part \(part), width \(width)")
                XCTAssertLessThanOrEqual(count, Secp256k1.WNAF.partSpan)
                XCTAssertEqual(digits, Array(reference.digits.prefix(Secp256k1.WNAF.partSpan)))
                XCTAssertTrue(reference.digits.dropFirst(Secp256k1.WNAF.partSpan).allSatisfy { $0 == 0 })
            }
        }
    }

    func test_wnaf_digitsAreOddBoundedSparse_andSumToTheScalar() {
        let values = samples(below: reference.n, count: 100).map { Scalar(bigEndian: $0) } + [Scalar(.max, .max, .max, .max)]
        for width in [4, 5, 12] {
            for k in values {
                let wnaf = Secp256k1.WNAF(k, width: width)
                var lastNonZero = Int.max / 2
                // Σ d_i·2^i, accumulated mod n from the top digit down (Horner).
                var sum = Scalar.zero
                let two = Scalar(2, 0, 0, 0).montgomery
                for i in stride(from: wnaf.digits.count - 1, through: 0, by: -1) {
                    sum = sum.times(montgomery: two)
                    let digit = Int(wnaf.digits[i])
                    guard digit != 0 else { continue }
                    XCTAssertEqual(abs(digit) % 2, 1)
                    XCTAssertLessThan(abs(digit), 1 << (width - 1))
                    XCTAssertLessThan(i, wnaf.count)
                    XCTAssertGreaterThanOrEqual(lastNonZero - i, width, "digits closer than w apart")
                    lastNonZero = i
                    let magnitude = Scalar(UInt64(abs(digit)), 0, 0, 0)
                    sum = sum + (digit > 0 ? magnitude : magnitude.negated)
                }
                XCTAssertEqual(sum, k.reducedModN)
            }
        }
    }
}
