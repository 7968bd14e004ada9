/// A JSON object seen through `Key`: Codable's view of the same object a `JSONObjectReader` reads,
/// whose member lookup (`require`, `optional`) and errors it shares.
struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: JSONObjectReader

    init(decoder: JSONTapeDecoder, object: Int, path: JSONCodingPath) {
        reader = JSONObjectReader(decoder: decoder, object: object, path: path)
    }

    private var decoder: JSONTapeDecoder { reader.decoder }
    private var object: Int { reader.object }
    private var path: JSONCodingPath { reader.path }

    var codingPath: [any CodingKey] { path.keys }

    var allKeys: [Key] {
        let tape = decoder.tape
        var keys: [Key] = []
        var member = object + 1
        while member < tape.nodes[object].next {
            if let key = Key(stringValue: tape.string(at: member)) { keys.append(key) }
            member = tape.nodes[member + 1].next
        }
        return keys
    }

    private func require(_ key: Key) throws -> Int { try reader.require(key) }

    /// Nil for a missing key or a null value.
    private func optional(_ key: Key) -> Int? { reader.optional(key) }

    func contains(_ key: Key) -> Bool { reader.contains(key) }

    func decodeNil(forKey key: Key) throws -> Bool { decoder.tape.nodes[try require(key)].kind == .null }

    // The member types `JSONObjectReader` has are read by it, for both paths; the rest here.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try reader.decode(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try reader.decode(type, forKey: key) }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.read(type, at: try require(key), path: .key(key, path)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.read(type, at: try require(key), path: .key(key, path)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try reader.decode(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.read(type, at: try require(key), path: .key(key, path)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.read(type, at: try require(key), path: .key(key, path)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.read(type, at: try require(key), path: .key(key, path)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try reader.decode(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.read(type, at: try require(key), path: .key(key, path)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.read(type, at: try require(key), path: .key(key, path)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.read(type, at: try require(key), path: .key(key, path)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try reader.decode(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.read(type, at: try require(key), path: .key(key, path)) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try reader.decode(type, forKey: key) }

    // One lookup instead of the default contains + decodeNil + decode.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try reader.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try reader.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try reader.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try reader.decodeIfPresent(type, forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try reader.decodeIfPresent(type, forKey: key) }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        guard let value = optional(key) else { return nil }
        return try decoder.read(type, at: value, path: .key(key, path))
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        guard let value = optional(key) else { return nil }
        return try decoder.read(type, at: value, path: .key(key, path))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try reader.decodeIfPresent(type, forKey: key)
    }

    // MARK: Nesting

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try require(key)
        try decoder.expect(.object, at: value, as: [String: Any].self, path: .key(key, path))
        return KeyedDecodingContainer(JSONKeyedContainer<NestedKey>(decoder: decoder, object: value, path: .key(key, path)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try require(key)
        try decoder.expect(.array, at: value, as: [Any].self, path: .key(key, path))
        return JSONUnkeyedContainer(decoder: decoder, array: value, path: .key(key, path))
    }

    func superDecoder() throws -> any Decoder {
        try superDecoder(named: JSONSuperKey())
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder(named: key)
    }

    private func superDecoder(named key: any CodingKey) throws -> any Decoder {
        JSONTapeDecoder(tape: decoder.tape, index: try reader.require(key), path: .key(key, path), objects: decoder.objects)
    }
}

/// The key `superDecoder()` and `superEncoder()` use (as Foundation's coders do).
struct JSONSuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { guard stringValue == "super" else { return nil } }
    init?(intValue: Int) { return nil }
}
