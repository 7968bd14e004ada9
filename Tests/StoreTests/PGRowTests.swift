import Foundation
import XCTest
@testable import Store

/// Binary decoding without a server: wrong types, truncated, oversized and malformed cells.
final class PGRowTests: XCTestCase {
    private func row(_ cells: [(String, PGType, [UInt8]?)]) -> PGRow {
        PGRow(columns: PGColumns(names: cells.map(\.0), types: cells.map(\.1)), values: cells.map(\.2))
    }

    func test_columns_byNameAndIndex() throws {
        let r = row([("a", .int4, [0, 0, 0, 7]), ("b", .text, Array("hi".utf8)), ("a", .int4, [0, 0, 0, 9])])
        XCTAssertEqual(try r.int("a"), 7, "the first of duplicate names wins")
        XCTAssertEqual(try r.int(2), 9)
        XCTAssertEqual(try r.string(1), "hi")
        XCTAssertEqual(r.columnNames, ["a", "b", "a"])
        XCTAssertEqual(storeError { try r.int("missing") }, .decoding("no column named \"missing\""))
        XCTAssertEqual(storeError { try r.int(3) }, .decoding("column index 3 out of range (3 columns)"))
        XCTAssertEqual(storeError { try r.int(-1) }, .decoding("column index -1 out of range (3 columns)"))
    }

    func test_integers_rejectWrongLengthsAndTypes() {
        let truncated = row([("n", .int8, [0, 0, 1])])
        XCTAssertEqual(storeError { try truncated.int64("n") },
                       .decoding("column \"n\" (int8) as Int64: expected 8 bytes, got 3"))
        let oversized = row([("n", .int4, [0, 0, 0, 0, 1])])
        XCTAssertEqual(storeError { try oversized.int32("n") },
                       .decoding("column \"n\" (int4) as Int32: expected 4 bytes, got 5"))
        let text = row([("n", .text, Array("12".utf8))])
        XCTAssertEqual(storeError { try text.int64("n") },
                       .decoding("column \"n\" (text) as Int64: cannot read text as an integer"))
    }

    func test_narrowing_failsWhenTheValueDoesNotFit() throws {
        let big = row([("n", .int8, .bigEndian(Int64(Int32.max) + 1))])
        XCTAssertEqual(try big.int64("n"), 2_147_483_648)
        XCTAssertEqual(storeError { try big.int32("n") },
                       .decoding("column \"n\" (int8) as Int32: 2147483648 does not fit in Int32"))
        let small = row([("n", .int4, .bigEndian(Int32(-40_000)))])
        XCTAssertEqual(storeError { try small.int16("n") },
                       .decoding("column \"n\" (int4) as Int16: -40000 does not fit in Int16"))
    }

    func test_boolDateUUIDBytes_rejectMalformedCells() {
        XCTAssertNotNil(storeError { try row([("b", .bool, [])]).bool("b") })
        XCTAssertNotNil(storeError { try row([("b", .bool, [1, 0])]).bool("b") })
        XCTAssertNotNil(storeError { try row([("b", .int2, [0, 1])]).bool("b") })
        XCTAssertNotNil(storeError { try row([("d", .timestamptz, [0, 0, 0, 0])]).date("d") })
        XCTAssertNotNil(storeError { try row([("d", .text, Array("2020".utf8))]).date("d") })
        XCTAssertNotNil(storeError { try row([("u", .uuid, Array(repeating: 0, count: 15))]).uuid("u") })
        XCTAssertNotNil(storeError { try row([("u", .uuid, Array(repeating: 0, count: 17))]).uuid("u") })
        XCTAssertNotNil(storeError { try row([("x", .text, [1, 2])]).bytes("x") })
        XCTAssertNotNil(storeError { try row([("f", .float8, [0, 0, 0, 0])]).double("f") })
    }

    func test_strings_rejectInvalidUTF8AndUnknownJSONBVersion() throws {
        XCTAssertEqual(storeError { try row([("s", .text, [0x61, 0xFF])]).string("s") },
                       .decoding("column \"s\" (text) as String: invalid UTF-8"))
        XCTAssertEqual(try row([("j", .jsonb, [1] + Array("{}".utf8))]).string("j"), "{}")
        XCTAssertNotNil(storeError { try row([("j", .jsonb, [2] + Array("{}".utf8))]).string("j") })
        XCTAssertNotNil(storeError { try row([("j", .jsonb, [])]).string("j") })
    }

    /// numeric_send form: ndigits, weight, sign, dscale, then base-10000 digits.
    private func numeric(_ digits: [Int16], weight: Int16, sign: UInt16 = 0, scale: UInt16) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(Int16(digits.count))
        bytes.appendBigEndian(weight)
        bytes.appendBigEndian(sign)
        bytes.appendBigEndian(scale)
        for digit in digits { bytes.appendBigEndian(digit) }
        return bytes
    }

    func test_numeric_decodesToItsDecimalText() throws {
        XCTAssertEqual(try PGNumeric.string(from: numeric([1, 2345], weight: 1, scale: 0)), "12345")
        XCTAssertEqual(try PGNumeric.string(from: numeric([12, 3400], weight: 0, scale: 2)), "12.34")
        XCTAssertEqual(try PGNumeric.string(from: numeric([1], weight: -1, scale: 4)), "0.0001")
        XCTAssertEqual(try PGNumeric.string(from: numeric([5], weight: -2, sign: 0x4000, scale: 8)), "-0.00000005")
        XCTAssertEqual(try PGNumeric.string(from: numeric([5000], weight: -1, sign: 0x4000, scale: 5)), "-0.50000")
        XCTAssertEqual(try PGNumeric.string(from: numeric([], weight: 0, scale: 3)), "0.000")
        XCTAssertEqual(try PGNumeric.string(from: numeric([1], weight: 2, scale: 0)), "100000000")
        XCTAssertEqual(try PGNumeric.string(from: numeric([], weight: 0, sign: 0xC000, scale: 0)), "NaN")
    }

    func test_numeric_rejectsTruncatedOversizedAndMalformedInput() {
        let good = numeric([1, 2345], weight: 1, scale: 0)
        XCTAssertNotNil(storeError { try PGNumeric.string(from: Array(good.dropLast())) }, "truncated digit")
        XCTAssertNotNil(storeError { try PGNumeric.string(from: Array(good.prefix(5))) }, "truncated header")
        XCTAssertNotNil(storeError { try PGNumeric.string(from: good + [0, 0]) }, "trailing digit")
        XCTAssertNotNil(storeError { try PGNumeric.string(from: numeric([10_000], weight: 0, scale: 0)) }, "bad digit")
        XCTAssertNotNil(storeError { try PGNumeric.string(from: numeric([-1], weight: 0, scale: 0)) }, "negative digit")
        XCTAssertNotNil(storeError { try PGNumeric.string(from: numeric([1], weight: 0, sign: 0x1234, scale: 0)) })
        var negativeCount: [UInt8] = []
        negativeCount.appendBigEndian(Int16(-1))
        negativeCount += [0, 0, 0, 0, 0, 0]
        XCTAssertNotNil(storeError { try PGNumeric.string(from: negativeCount) })
    }

    func test_numeric_readsAsIntegerOrDoubleWhenExact() throws {
        let r = row([("whole", .numeric, numeric([12, 3456], weight: 1, scale: 0)),
                     ("fraction", .numeric, numeric([12, 3400], weight: 0, scale: 2))])
        XCTAssertEqual(try r.int64("whole"), 123_456)
        XCTAssertEqual(try r.double("fraction"), 12.34)
        XCTAssertNotNil(storeError { try r.int64("fraction") })
    }

    /// array_send form for a one-dimensional int8 array.
    private func int8Array(_ values: [Int64?], count: Int32? = nil, dimensions: Int32 = 1) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(dimensions)
        bytes.appendBigEndian(Int32(0))
        bytes.appendBigEndian(PGType.int8.rawValue)
        for _ in 0..<dimensions {
            bytes.appendBigEndian(count ?? Int32(values.count))
            bytes.appendBigEndian(Int32(1))
        }
        for value in values {
            if let value {
                bytes.appendBigEndian(Int32(8))
                bytes.appendBigEndian(value)
            } else {
                bytes.appendBigEndian(Int32(-1))
            }
        }
        return bytes
    }

    func test_arrays_rejectTruncatedOversizedAndMalformedInput() throws {
        XCTAssertEqual(try row([("a", .int8Array, int8Array([1, 2]))]).array(Int64.self, "a"), [1, 2])
        let good = int8Array([1, 2])
        XCTAssertNotNil(storeError { try row([("a", .int8Array, Array(good.dropLast()))]).array(Int64.self, "a") })
        XCTAssertNotNil(storeError { try row([("a", .int8Array, good + [0])]).array(Int64.self, "a") })
        XCTAssertNotNil(storeError {
            try row([("a", .int8Array, int8Array([1], count: Int32.max))]).array(Int64.self, "a")
        }, "a huge declared count must not be trusted")
        XCTAssertNotNil(storeError { try row([("a", .int8Array, int8Array([1], count: -1))]).array(Int64.self, "a") })
        XCTAssertNotNil(storeError {
            try row([("a", .int8Array, int8Array([1], dimensions: 2))]).array(Int64.self, "a")
        })
        XCTAssertNotNil(storeError { try row([("a", .int8Array, Array(good.prefix(6)))]).array(Int64.self, "a") })
        XCTAssertNotNil(storeError { try row([("a", .int8Array, nil)]).array(Int64.self, "a") })
    }

    func test_bindings_encodeBigEndianAndPostgresEpoch() {
        XCTAssertEqual(Int64(258).pgBinding, PGBinding(type: .int8, format: .binary, bytes: [0, 0, 0, 0, 0, 0, 1, 2]))
        XCTAssertEqual(Int32(-2).pgBinding.bytes, [0xFF, 0xFF, 0xFF, 0xFE])
        XCTAssertEqual(Int16(1).pgBinding.bytes, [0, 1])
        XCTAssertEqual(Date(timeIntervalSince1970: 946_684_800 + 1).pgBinding.bytes, [0, 0, 0, 0, 0, 0x0F, 0x42, 0x40])
        XCTAssertEqual("é".pgBinding, PGBinding(type: .unspecified, format: .text, bytes: [0xC3, 0xA9]))
    }
}
