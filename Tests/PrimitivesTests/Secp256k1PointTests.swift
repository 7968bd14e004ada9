@testable import Primitives
import XCTest

/// Point decoding and u1·G + u2·Q against OpenSSL's EC_POINT code.
final class Secp256k1PointTests: XCTestCase {
    private typealias Point = Secp256k1.AffinePoint
    private typealias Scalar = Secp256k1.Scalar
    private let reference = Secp256k1Reference.self
    private let generator = Point.generator.sec1(compressed: false)

    private func openSSLAccepts(_ sec1: [UInt8]) -> Bool { (try? ECDSAPublicKey(curve: .secp256k1, sec1: sec1)) != nil }

    func test_decompression_roundTripsWithOpenSSL() throws {
        for _ in 0..<200 {
            let key = try ECDSAPrivateKey.generate(curve: .secp256k1).publicKey
            let fromCompressed = try XCTUnwrap(Point(sec1: key.compressed))
            XCTAssertEqual(fromCompressed.sec1(compressed: false), key.uncompressed)
            XCTAssertEqual(fromCompressed.sec1(compressed: true), key.compressed)
            let fromUncompressed = try XCTUnwrap(Point(sec1: key.uncompressed))
            XCTAssertEqual(fromUncompressed.sec1(compressed: true), key.compressed)
        }
        XCTAssertEqual(Point(sec1: try hex("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"))?.sec1(compressed: false), generator)
    }

    func test_decoding_acceptsExactlyWhatOpenSSLAccepts() throws {
        var candidates: [[UInt8]] = [[], [0x00], [0x04], [0x02], generator, Array(generator.dropLast()), generator + [0]]
        let p = reference.p
        let pMinus1 = reference.modSub([UInt8](repeating: 0, count: 32), [UInt8](repeating: 0, count: 31) + [1], p)
        for x in [[UInt8](repeating: 0, count: 32), pMinus1, p, [UInt8](repeating: 0xFF, count: 32)] {
            candidates += [[0x02] + x, [0x03] + x, [0x04] + x + x]
        }
        for _ in 0..<100 {
            let x = SecureRandom.bytes(32)
            candidates += [[0x02] + x, [0x03] + x, [0x04] + x + SecureRandom.bytes(32), [0x05] + x]
        }
        var offCurve = generator
        offCurve[64] ^= 1
        candidates.append(offCurve)
        // y replaced by y + p: the same residue, but not a field element encoding.
        let gy = Array(generator[33...])
        let yPlusP = Scalar(bigEndian: gy).addingRaw(Scalar(bigEndian: p))
        if yPlusP.carry == 0 { candidates.append([0x04] + generator[1..<33] + yPlusP.value.bigEndianBytes) }
        // A compressed point whose x³ + 7 is a square but given with x + p (when that fits in 256 bits).
        candidates.append([0x02] + Scalar(bigEndian: generator, at: 1).addingRaw(Scalar(bigEndian: p)).value.bigEndianBytes)
        var accepted = 0
        for candidate in candidates {
            let native = Point(sec1: candidate) != nil
            XCTAssertEqual(native, openSSLAccepts(candidate), "\(candidate)")
            if native { accepted += 1 }
        }
        XCTAssertGreaterThan(accepted, 50, "about half of the random x are on the curve")
    }

    func test_linearCombination_matchesOpenSSL() throws {
        for _ in 0..<100 {
            let q = try ECDSAPrivateKey.generate(curve: .secp256k1).publicKey.uncompressed
            let u1 = Scalar(bigEndian: SecureRandom.bytes(32)).reducedModN
            let u2 = Scalar(bigEndian: SecureRandom.bytes(32)).reducedModN
            try assertCombination(u1, u2, q)
        }
    }

    func test_linearCombination_edgeCases_matchOpenSSL() throws {
        let q = try ECDSAPrivateKey.generate(curve: .secp256k1).publicKey.uncompressed
        let u = Scalar(bigEndian: SecureRandom.bytes(32)).reducedModN
        let nMinus1 = Scalar.n.subtractingRaw(.one).value
        let negatedG = Point.generator.negated.sec1(compressed: false)
        let cases: [(Scalar, Scalar, [UInt8])] = [
            (.zero, .zero, q), (u, .zero, q), (.zero, u, q), (.one, .zero, q), (.zero, .one, q),
            (nMinus1, .zero, q), (.zero, nMinus1, q), (nMinus1, nMinus1, q),
            (u, u.negated, generator),   // u·G − u·G = ∞
            (u, u, generator),           // u·G + u·G: the additions meet equal points
            (u, u, negatedG),            // ∞ again, via Q = −G
            (.one, .one, generator), (.one, nMinus1, generator),
            (u, Secp256k1.Endomorphism.lambda, q), (Scalar(0, 0, 1, 0), Scalar(0, 0, 1, 0), q),
        ]
        for (u1, u2, point) in cases { try assertCombination(u1, u2, point) }
    }

    func test_generatorTables_holdOddMultiplesOfGAnd2To128G() {
        let table = Secp256k1.GeneratorTable.shared
        XCTAssertEqual(table.low.count, 1 << (Secp256k1.GeneratorTable.width - 2))
        let one = Scalar.one.bigEndianBytes, zero = Scalar.zero.bigEndianBytes
        let twoTo128 = Scalar(0, 0, 1, 0)
        for index in [0, 1, 2, 77, table.low.count - 1] {
            let multiple = Scalar(UInt64(2 * index + 1), 0, 0, 0)
            XCTAssertEqual(table.low[index].sec1(compressed: false),
                           reference.linearCombination(u1: multiple.bigEndianBytes, u2: zero, q: generator))
            let high = reference.modMul(multiple.bigEndianBytes, twoTo128.bigEndianBytes, reference.n)
            XCTAssertEqual(table.high[index].sec1(compressed: false), reference.linearCombination(u1: high, u2: zero, q: generator))
        }
        XCTAssertEqual(table.low[0].sec1(compressed: false), reference.linearCombination(u1: one, u2: zero, q: generator))
    }

    func test_linearCombination_withKeyTables_randomScalars_matchOpenSSL() throws {
        for round in 0..<60 {
            let q = try ECDSAPrivateKey.generate(curve: .secp256k1).publicKey.uncompressed
            var u1 = Scalar(bigEndian: SecureRandom.bytes(32)).reducedModN
            var u2 = Scalar(bigEndian: SecureRandom.bytes(32)).reducedModN
            // Some with short or lopsided scalars: whole 64-bit quarters zero, or all ones.
            if round % 3 == 1 { u1 = Scalar(u1.l0, 0, u1.l2, 0); u2 = Scalar(0, u2.l1, 0, 0) }
            if round % 3 == 2 { u1 = Scalar(.max, .max, 0, 0); u2 = Scalar(0, 0, .max, 0) }
            try assertCombination(u1, u2, q)
        }
    }

    func test_keyTables_holdOddMultiplesOfQ_λQ_and2To64Multiples() throws {
        let key = try ECDSAPrivateKey.generate(curve: .secp256k1).publicKey.uncompressed
        let tables = Secp256k1.KeyTables(try XCTUnwrap(Point(sec1: key)))
        let zero = Scalar.zero.bigEndianBytes
        let lambda = Secp256k1.Endomorphism.lambda.bigEndianBytes
        let twoTo64 = Scalar(0, 1, 0, 0).bigEndianBytes
        XCTAssertEqual(tables.q.count, 1 << (Secp256k1.KeyTables.width - 2))
        for index in tables.q.indices {
            let multiple = Scalar(UInt64(2 * index + 1), 0, 0, 0).bigEndianBytes
            func times(_ factors: [UInt8]...) -> [UInt8]? {
                let scalar = factors.reduce(multiple) { reference.modMul($0, $1, reference.n) }
                return reference.linearCombination(u1: zero, u2: scalar, q: key)
            }
            XCTAssertEqual(tables.q[index].sec1(compressed: false), times())
            XCTAssertEqual(tables.lambdaQ[index].sec1(compressed: false), times(lambda))
            XCTAssertEqual(tables.q64[index].sec1(compressed: false), times(twoTo64))
            XCTAssertEqual(tables.lambdaQ64[index].sec1(compressed: false), times(lambda, twoTo64))
        }
    }

    func test_generatorQuarters_holdOddMultiplesOf2To64GAnd2To192G() {
        let quarters = Secp256k1.GeneratorTable.Quarters.shared
        let zero = Scalar.zero.bigEndianBytes
        for index in [0, 1, 5, quarters.g64.count - 1] {
            let multiple = Scalar(UInt64(2 * index + 1), 0, 0, 0).bigEndianBytes
            let at64 = reference.modMul(multiple, Scalar(0, 1, 0, 0).bigEndianBytes, reference.n)
            let at192 = reference.modMul(multiple, Scalar(0, 0, 0, 1).bigEndianBytes, reference.n)
            XCTAssertEqual(quarters.g64[index].sec1(compressed: false), reference.linearCombination(u1: at64, u2: zero, q: generator))
            XCTAssertEqual(quarters.g192[index].sec1(compressed: false), reference.linearCombination(u1: at192, u2: zero, q: generator))
        }
    }

    /// Both paths, the general one and the one with Q's `KeyTables`, against OpenSSL.
    private func assertCombination(_ u1: Scalar, _ u2: Scalar, _ q: [UInt8], line: UInt = #line) throws {
        let point = try XCTUnwrap(Point(sec1: q), line: line)
        let native = Secp256k1.linearCombination(u1: u1, u2: u2, q: point).affine?.sec1(compressed: false)
        let expected = reference.linearCombination(u1: u1.bigEndianBytes, u2: u2.bigEndianBytes, q: q)
        XCTAssertEqual(native, expected, "u1 \(u1.bigEndianBytes) u2 \(u2.bigEndianBytes)", line: line)
        let withTables = try XCTUnwrap(Secp256k1.linearCombination(u1: u1, u2: u2, tables: Secp256k1.KeyTables(point)), line: line)
        XCTAssertEqual(withTables.affine?.sec1(compressed: false), expected, "with tables: u1 \(u1.bigEndianBytes) u2 \(u2.bigEndianBytes)",
                       line: line)
    }
}
