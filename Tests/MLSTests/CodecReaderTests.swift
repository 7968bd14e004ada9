import MLS
import XCTest

/// TLSReader and TLSWriter primitives: varints, vectors, optionals, limits (RFC 9420 §2.1).
final class CodecReaderTests: XCTestCase {
    func testVarint_boundaries_roundTripMinimally() throws {
        let cases: [(Int, [UInt8])] = [
            (0, [0x00]), (63, [0x3F]), (64, [0x40, 0x40]), (16383, [0x7F, 0xFF]),
            (16384, [0x80, 0x00, 0x40, 0x00]), (TLSWriter.maxVarint, [0xBF, 0xFF, 0xFF, 0xFF]),
        ]
        for (value, bytes) in cases {
            var writer = TLSWriter()
            writer.writeVarint(value)
            XCTAssertEqual(writer.bytes, bytes)
            var reader = TLSReader(bytes)
            XCTAssertEqual(try reader.readVarint(), value)
            XCTAssertTrue(reader.isAtEnd)
        }
    }

    func testVarint_nonMinimal_throws() {
        for bytes: [UInt8] in [[0x40, 0x00], [0x40, 0x3F], [0x80, 0x00, 0x00, 0x3F], [0x80, 0x00, 0x3F, 0xFF]] {
            var reader = TLSReader(bytes)
            XCTAssertThrowsError(try reader.readVarint()) { XCTAssertEqual($0 as? DecodingError, .invalidVarint) }
        }
    }

    func testVarint_reservedPrefix_throws() {
        for first: UInt8 in [0xC0, 0xFF] {
            var reader = TLSReader([first, 0, 0, 0, 0, 0, 0, 0])
            XCTAssertThrowsError(try reader.readVarint()) { XCTAssertEqual($0 as? DecodingError, .invalidVarint) }
        }
    }

    func testVarint_truncated_throws() {
        for bytes: [UInt8] in [[], [0x40], [0x80, 0x00, 0x40]] {
            var reader = TLSReader(bytes)
            XCTAssertThrowsError(try reader.readVarint()) { error in
                guard case .truncated = error as? DecodingError else { return XCTFail("\(error)") }
            }
        }
    }

    func testOpaque_lengthBeyondInput_throwsTruncated() {
        var reader = TLSReader([0xBF, 0xFF, 0xFF, 0xFF, 1, 2, 3])
        XCTAssertThrowsError(try reader.readOpaque()) {
            XCTAssertEqual($0 as? DecodingError, .truncated(needed: TLSWriter.maxVarint, remaining: 3))
        }
    }

    func testVector_innerLengthCannotPassOuterVector() {
        // An outer vector of 2 bytes whose element claims 3 bytes, although 3 bytes follow in the input.
        var reader = TLSReader([0x02, 0x03, 0xAA, 0xBB, 0xCC])
        XCTAssertThrowsError(try reader.readVector { (r: inout TLSReader) throws(DecodingError) in try r.readOpaque() }) {
            XCTAssertEqual($0 as? DecodingError, .truncated(needed: 3, remaining: 1))
        }
    }

    func testVector_partialElement_throws() {
        // Three bytes cannot hold a whole number of uint16 values.
        var reader = TLSReader([0x03, 0x00, 0x01, 0x00])
        XCTAssertThrowsError(try reader.readUInt16Vector())
    }

    func testVector_elementReadingNothing_throwsInsteadOfLooping() {
        var reader = TLSReader([0x01, 0x00])
        XCTAssertThrowsError(try reader.readVector { (_: inout TLSReader) throws(DecodingError) in 0 }) { error in
            guard case .invalidValue = error as? DecodingError else { return XCTFail("\(error)") }
        }
    }

    func testVector_afterInnerError_readerStateIsRestored() throws {
        var reader = TLSReader([0x02, 0x05, 0x00, 0x07])
        XCTAssertThrowsError(try reader.readVector { (r: inout TLSReader) throws(DecodingError) in try r.readOpaque() })
        // Position is wherever the failure left it, but the limit is the whole input again.
        XCTAssertEqual(reader.remaining, 4 - reader.offset)
    }

    func testNestedVectors_beyondMaxDepth_throwDepthExceeded() {
        func nestedBytes(_ depth: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            for _ in 0..<depth {
                var writer = TLSWriter()
                writer.writeOpaque(bytes)
                bytes = writer.bytes
            }
            return bytes
        }
        func readNested(_ r: inout TLSReader) throws(DecodingError) -> Int {
            let inner = try r.readVector { (r: inout TLSReader) throws(DecodingError) in try readNested(&r) }
            return 1 + (inner.first ?? 0)
        }
        var ok = TLSReader(nestedBytes(TLSReader.maxDepth))
        XCTAssertEqual(try readNested(&ok), TLSReader.maxDepth)
        var deep = TLSReader(nestedBytes(TLSReader.maxDepth + 1))
        XCTAssertThrowsError(try readNested(&deep)) { XCTAssertEqual($0 as? DecodingError, .depthExceeded) }
        var huge = TLSReader(nestedBytes(10_000))
        XCTAssertThrowsError(try readNested(&huge)) { XCTAssertEqual($0 as? DecodingError, .depthExceeded) }
    }

    func testNested_beyondMaxDepth_throws() {
        func recurse(_ r: inout TLSReader, _ n: Int) throws(DecodingError) {
            if n == 0 { return }
            try r.nested { (r: inout TLSReader) throws(DecodingError) in try recurse(&r, n - 1) }
        }
        var reader = TLSReader([])
        XCTAssertNoThrow(try recurse(&reader, TLSReader.maxDepth))
        XCTAssertThrowsError(try recurse(&reader, TLSReader.maxDepth + 1)) {
            XCTAssertEqual($0 as? DecodingError, .depthExceeded)
        }
    }

    func testOptional_invalidPresenceByte_throws() {
        for tag: UInt8 in [2, 0x80, 0xFF] {
            var reader = TLSReader([tag, 0x00])
            XCTAssertThrowsError(try reader.readOptional { (r: inout TLSReader) throws(DecodingError) in try r.readUInt8() }) {
                XCTAssertEqual($0 as? DecodingError, .invalidValue("optional presence byte \(tag)"))
            }
        }
    }

    func testDecoding_trailingBytes_rejected() throws {
        let bytes = GroupSecrets(joinerSecret: [1, 2]).encoded()
        XCTAssertNoThrow(try GroupSecrets(decoding: bytes))
        XCTAssertThrowsError(try GroupSecrets(decoding: bytes + [0])) { XCTAssertEqual($0 as? DecodingError, .trailingBytes(1)) }
    }

    func testFixedWidthIntegers_areBigEndian() throws {
        var writer = TLSWriter()
        writer.write(UInt16(0x0102))
        writer.write(UInt32(0x0304_0506))
        writer.write(UInt64(0x0708_090A_0B0C_0D0E))
        XCTAssertEqual(writer.bytes, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
        var reader = TLSReader(writer.bytes)
        XCTAssertEqual(try reader.readUInt16(), 0x0102)
        XCTAssertEqual(try reader.readUInt32(), 0x0304_0506)
        XCTAssertEqual(try reader.readUInt64(), 0x0708_090A_0B0C_0D0E)
        XCTAssertThrowsError(try reader.readUInt8())
    }

    func testGREASE_detection() {
        let grease: [UInt16] = [0x0A0A, 0x1A1A, 0x2A2A, 0x3A3A, 0x4A4A, 0x5A5A, 0x6A6A, 0x7A7A,
                                0x8A8A, 0x9A9A, 0xAAAA, 0xBABA, 0xCACA, 0xDADA, 0xEAEA]
        for value in grease { XCTAssertTrue(ExtensionType(rawValue: value).isGREASE, "\(value)") }
        for value: UInt16 in [0, 1, 5, 0x0A0B, 0x0B0A, 0xFAFA, 0xFFFF, 0x0A1A] {
            XCTAssertFalse(ExtensionType(rawValue: value).isGREASE, "\(value)")
        }
    }
}
