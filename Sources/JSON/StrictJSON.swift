/// Codable JSON over the strict parser, for request and response bodies on the hot path: several
/// times cheaper than Foundation's coders on Linux and stricter on input (see `JSONTape`).
///
/// Decoding throws `JSONParseError` for text that is not acceptable JSON and `DecodingError`
/// (with the coding path of the offending field) when the JSON does not fit the type. Integers
/// decode from integral numbers only; `Data`, `Date` and `URL` use their own Codable forms (no
/// base64 or date strategies). Encoding writes object members in the order they are encoded,
/// never escapes `/`, refuses non-finite numbers, and writes doubles with an integral value without
/// ".0", as Foundation does.
public enum StrictJSON {
    /// `objects: .codable` decodes `JSONObjectDecodable` types through Codable too (for the tests
    /// that hold the two paths to each other).
    public static func decode<T: Decodable>(
        _ type: T.Type = T.self, from bytes: [UInt8], objects: JSONObjectCoding = .direct
    ) throws -> T {
        let decoder = JSONTapeDecoder(tape: try JSONTape(parsing: bytes), index: 0, path: .root, objects: objects)
        return try decoder.decode(T.self, at: 0, path: .root)
    }

    /// `decode(_:from:objects:)` for a type that reads itself (`JSONObjectDecodable`), known as
    /// such where it is called: no dynamic cast to find that out.
    public static func decode<T: JSONObjectDecodable>(
        _ type: T.Type = T.self, from bytes: [UInt8], objects: JSONObjectCoding = .direct
    ) throws -> T {
        let decoder = JSONTapeDecoder(tape: try JSONTape(parsing: bytes), index: 0, path: .root, objects: objects)
        guard objects == .direct else { return try decoder.decode(T.self, at: 0, path: .root) }
        return try decoder.readObject(T.self, at: 0, path: .root)
    }

    public static func encode(_ value: some Encodable, objects: JSONObjectCoding = .direct) throws -> [UInt8] {
        let encoder = JSONStreamEncoder(objects: objects)
        try encoder.encodeTopLevel(value)
        return encoder.output
    }
}
