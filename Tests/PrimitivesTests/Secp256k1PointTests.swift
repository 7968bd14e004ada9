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
            // Every 32-bit part of u1 all ones, or only its top bit: the parts that carry furthest.
            if round == 4 { u1 = Scalar(.max, .max, .max, .max).reducedModN }
            if round == 7 { u1 = Scalar(0x8000_0000_8000_0000, 0x8000_0000_8000_0000, 0x8000_0000_8000_0000, 0x8000_0000_8000_0000) }
            try assertCombination(u1, u2, q)
        }
    }

    func test_keyTables_holdOddMultiplesOf2To32jQ_andOfTheirλImages() throws {
        let key = try ECDSAPrivateKey.generate(curve: .secp256k1).publicKey.uncompressed
        let tables = Secp256k1.KeyTables(try XCTUnwrap(Point(sec1: key)))
        let zero = Scalar.zero.bigEndianBytes
        let lambda = Secp256k1.Endomorphism.lambda.bigEndianBytes
        XCTAssertEqual(tables.points.count, 8 * (1 << (Secp256k1.KeyTables.width - 2)))
        for j in 0..<4 {
            // 2^(32j)
            let power = [Scalar(1, 0, 0, 0), Scalar(1 << 32, 0, 0, 0), Scalar(0, 1, 0, 0), Scalar(0, 1 << 32, 0, 0)][j]
            let table = tables.table(j), lambdaTable = tables.table(j, lambda: true)
            XCTAssertEqual(table.count, Secp256k1.KeyTables.perTable)
            for (offset, index) in table.indices.enumerated() {
                let multiple = Scalar(UInt64(2 * offset + 1), 0, 0, 0).bigEndianBytes
                func times(_ factors: [UInt8]...) -> [UInt8]? {
                    let scalar = factors.reduce(reference.modMul(multiple, power.bigEndianBytes, reference.n)) {
                        reference.modMul($0, $1, reference.n)
                    }
                    return reference.linearCombination(u1: zero, u2: scalar, q: key)
                }
                XCTAssertEqual(table[index].sec1(compressed: false), times())
                XCTAssertEqual(lambdaTable[lambdaTable.startIndex + offset].sec1(compressed: false), times(lambda))
            }
        }
    }

    func test_generatorEighths_holdOddMultiplesOf2To32jG() {
        let eighths = Secp256k1.GeneratorTable.Eighths.shared
        let zero = Scalar.zero.bigEndianBytes
        XCTAssertEqual(eighths.points.count, 8 * Secp256k1.GeneratorTable.Eighths.perTable)
        for j in 0..<8 {
            var power = Scalar.zero
            switch j / 2 {
            case 0: power.l0 = 1 << UInt64(32 * (j % 2))
            case 1: power.l1 = 1 << UInt64(32 * (j % 2))
            case 2: power.l2 = 1 << UInt64(32 * (j % 2))
            default: power.l3 = 1 << UInt64(32 * (j % 2))
            }
            let table = eighths.table(j)
            for offset in [0, 1, 5, table.count - 1] {
                let multiple = Scalar(UInt64(2 * offset + 1), 0, 0, 0).bigEndianBytes
                let scalar = reference.modMul(multiple, power.bigEndianBytes, reference.n)
                XCTAssertEqual(table[table.startIndex + offset].sec1(compressed: false),
                               reference.linearCombination(u1: scalar, u2: zero, q: generator))
            }
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
