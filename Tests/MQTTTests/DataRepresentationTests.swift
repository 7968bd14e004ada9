import XCTest
@testable import MQTT

final class DataRepresentationTests: XCTestCase {
    func testVariableByteInteger_SpecTableBoundaries() throws {
        // MQTT 5.0 §1.5.5 Table 1-1: the first and last value of each size.
        let table: [(Int, [UInt8])] = [
            (0, [0x00]), (127, [0x7F]),
            (128, [0x80, 0x01]), (16_383, [0xFF, 0x7F]),
            (16_384, [0x80, 0x80, 0x01]), (2_097_151, [0xFF, 0xFF, 0x7F]),
            (2_097_152, [0x80, 0x80, 0x80, 0x01]), (268_435_455, [0xFF, 0xFF, 0xFF, 0x7F]),
        ]
        for (value, bytes) in table {
            var encoded: [UInt8] = []
            VariableByteInteger.encode(value, into: &encoded)
            XCTAssertEqual(encoded, bytes, "\(value)")
            XCTAssertEqual(VariableByteInteger.size(of: value), bytes.count)
            XCTAssertEqual(try VariableByteInteger.parse(bytes + [0xAA], at: 0), .value(value, length: bytes.count))
            for end in 0..<bytes.count {
                XCTAssertEqual(try VariableByteInteger.parse(Array(bytes[0..<end]), at: 0), .needMore)
            }
        }
    }

    func testVariableByteInteger_FifthByteAndNonMinimal_AreMalformed() {
        for bytes: [UInt8] in [[0xFF, 0xFF, 0xFF, 0xFF, 0x7F], [0x80, 0x80, 0x80, 0x80, 0x01], [0x80, 0x80, 0x80, 0x80]] {
            XCTAssertThrowsError(try VariableByteInteger.parse(bytes, at: 0)) {
                XCTAssertEqual(($0 as? MQTTError)?.reasonCode, .malformedPacket)
            }
        }
        // [MQTT-1.5.5-1]: the minimum number of bytes; 0x80 0x00 is zero in two bytes.
        for bytes: [UInt8] in [[0x80, 0x00], [0xFF, 0x80, 0x00], [0x81, 0x80, 0x80, 0x00]] {
            XCTAssertThrowsError(try VariableByteInteger.parse(bytes, at: 0)) {
                XCTAssertEqual($0 as? MQTTError, .malformed("Variable Byte Integer not minimally encoded"))
            }
        }
    }

    func testUTF8String_SpecExample() throws {
        // MQTT 5.0 §1.5.4 Figure 1-2: "A" then U+2A6D4.
        var writer = MQTTWriter()
        writer.writeString("A\u{2A6D4}")
        XCTAssertEqual(writer.bytes, [0x00, 0x05, 0x41, 0xF0, 0xAA, 0x9B, 0x94])
        var reader = MQTTReader(writer.bytes)
        XCTAssertEqual(try reader.readString(), "A\u{2A6D4}")
        XCTAssertTrue(reader.isAtEnd)
    }

    func testUTF8Validation_RefusesEachIllFormedKind() {
        let cases: [([UInt8], UTF8ValidationError)] = [
            ([0x61, 0x00], .nullCharacter(offset: 1)),                 // [MQTT-1.5.4-2]
            ([0xED, 0xA0, 0x80], .surrogate(offset: 0)),               // U+D800 [MQTT-1.5.4-1]
            ([0xED, 0xBF, 0xBF], .surrogate(offset: 0)),               // U+DFFF
            ([0xC0, 0x80], .overlongEncoding(offset: 0)),              // an overlong U+0000
            ([0xE0, 0x80, 0xAF], .overlongEncoding(offset: 0)),
            ([0xF0, 0x8F, 0xBF, 0xBF], .overlongEncoding(offset: 0)),
            ([0xF4, 0x90, 0x80, 0x80], .beyondUnicode(offset: 0)),     // U+110000
            ([0xF5, 0x80, 0x80, 0x80], .invalidByte(offset: 0)),
            ([0x80], .invalidByte(offset: 0)),                         // a lone continuation byte
            ([0x41, 0xE2, 0x82], .truncatedSequence(offset: 1)),
            ([0xE2, 0x28, 0xA1], .truncatedSequence(offset: 0)),
            ([0xFF], .invalidByte(offset: 0)),
        ]
        for (bytes, expected) in cases {
            XCTAssertThrowsError(try UTF8Validation.validate(bytes)) { XCTAssertEqual($0 as? UTF8ValidationError, expected, "\(bytes)") }
        }
        // Well-formed edge cases: U+007F, U+0080, U+07FF, U+FFFF (a non-character, allowed), U+10FFFF, BOM.
        for scalar: UInt32 in [0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFEFF, 0xFFFF, 0x10000, 0x10FFFF] {
            let bytes = Array(String(Unicode.Scalar(scalar)!).utf8)
            XCTAssertNoThrow(try UTF8Validation.validate(bytes), "U+\(String(scalar, radix: 16))")
        }
        XCTAssertNoThrow(try UTF8Validation.validate([0x61, 0x00, 0x62], allowNull: true))
    }

    func testUTF8Validation_AgreesWithTheStandardLibrary() {
        // Well-formed exactly when decoding and re-encoding gives the same bytes (ill-formed input comes
        // back with U+FFFD); checked for every 1- and 2-byte input and all 3-byte inputs of three leads.
        func reference(_ bytes: [UInt8]) -> Bool { Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes && !bytes.contains(0) }
        var inputs: [[UInt8]] = (0...255).map { [UInt8($0)] }
        for a in 0...255 { for b in 0...255 { inputs.append([UInt8(a), UInt8(b)]) } }
        for lead: UInt8 in [0xE0, 0xED, 0xF4] { for b in 0...255 { for c in 0...255 { inputs.append([lead, UInt8(b), UInt8(c)]) } } }
        for bytes in inputs where UTF8Validation.isValid(bytes) != reference(bytes) {
            XCTFail("disagree on \(bytes)")
            return
        }
    }

    func testUTF8String_InPacket_IsMalformedWithReason() {
        var reader = MQTTReader([0x00, 0x03, 0x61, 0xED, 0xA0])
        XCTAssertThrowsError(try reader.readString("Topic Name")) {
            guard case .malformed(let detail) = $0 as? MQTTError else { return XCTFail("\($0)") }
            XCTAssertTrue(detail.contains("Topic Name"), detail)
        }
        // [MQTT-1.5.4-3]: a BOM is kept, not stripped.
        var bom = MQTTReader([0x00, 0x04, 0xEF, 0xBB, 0xBF, 0x61])
        XCTAssertEqual(try bom.readString().unicodeScalars.first, "\u{FEFF}")
    }

    func testReader_TruncatedValues_AreMalformed() {
        let reads: [(inout MQTTReader) throws -> Void] = [
            { _ = try $0.readByte() }, { _ = try $0.readUInt16() }, { _ = try $0.readUInt32() },
            { _ = try $0.readString() }, { _ = try $0.readBinary() }, { _ = try $0.readStringPair() },
            { _ = try $0.readVariableByteInteger() },
        ]
        for read in reads {
            var empty = MQTTReader([])
            XCTAssertThrowsError(try read(&empty)) { XCTAssertEqual(($0 as? MQTTError)?.reasonCode, .malformedPacket) }
        }
        var shortString = MQTTReader([0x00, 0x05, 0x61])
        XCTAssertThrowsError(try shortString.readString())
        var shortPair = MQTTReader([0x00, 0x01, 0x61, 0x00, 0x02, 0x62])
        XCTAssertThrowsError(try shortPair.readStringPair())
    }

    func testBinaryAndPairs_RoundTrip() throws {
        var writer = MQTTWriter()
        writer.writeBinary([UInt8](repeating: 7, count: 65_535))
        writer.writeStringPair(StringPair("name", "välue"))
        writer.writeUInt32(0xDEADBEEF)
        var reader = MQTTReader(writer.bytes)
        XCTAssertEqual(try reader.readBinary().count, 65_535)
        XCTAssertEqual(try reader.readStringPair(), StringPair("name", "välue"))
        XCTAssertEqual(try reader.readUInt32(), 0xDEADBEEF)
        XCTAssertNoThrow(try reader.finish("test"))
    }

    func testTruncatedUTF8_CutsOnScalarBoundary() {
        let text = "aé€𪛔"
        for limit in 0...12 {
            let cut = text.truncatedUTF8(maxBytes: limit)
            XCTAssertLessThanOrEqual(cut.utf8.count, limit)
            XCTAssertTrue(text.hasPrefix(cut))
        }
        XCTAssertEqual(text.truncatedUTF8(maxBytes: 4), "aé")
    }
}
