import MLS

/// deserialization.json: each `vlbytes_header` is a minimal varint length (RFC 9420 §2.1.2).
public enum DeserializationVectors {
    @Sendable
    public static func check(_ testCase: [String: Any]) throws {
        let header = try VectorJSON.hex(testCase, "vlbytes_header")
        let length = try VectorJSON.int(testCase, "length")
        var reader = TLSReader(header)
        let decoded = try reader.readVarint()
        try reader.finish()
        try VectorJSON.expect(decoded, length, "decoded length")
        var writer = TLSWriter()
        writer.writeVarint(length)
        try VectorJSON.expect(writer.bytes, header, "re-encoded header")
    }
}
