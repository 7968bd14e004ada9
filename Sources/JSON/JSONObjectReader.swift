import Basics

/// One JSON object of a parsed document, read member by member by a `JSONObjectDecodable` type.
/// Mirrors `KeyedDecodingContainer`: `decode` for a required member (missing → keyNotFound, null →
/// valueNotFound), `decodeIfPresent` for an optional one (missing or null → nil). Every read is the
/// one the Codable path makes (`JSONTapeDecoder`'s readers, the same expected types), so both fail
/// with the same `DecodingError` and coding path.
public struct JSONObjectReader {
    let decoder: JSONTapeDecoder
    let object: Int
    /// The object's path is `parent`, or element `element` of it: built only when an error needs it,
    /// so reading an array of objects allocates no path per element.
    private let parent: JSONCodingPath
    private let element: Int?

    init(decoder: JSONTapeDecoder, object: Int, path: JSONCodingPath, element: Int? = nil) {
        self.decoder = decoder
        self.object = object
        parent = path
        self.element = element
    }

    var path: JSONCodingPath { element.map { .index($0, parent) } ?? parent }

    public var codingPath: [any CodingKey] { path.keys }

    /// The tape index of the value under `key`, if the object has it.
    func valueIndex(_ key: any CodingKey) -> Int? {
        let hint = decoder.memberHint
        let value = decoder.tape.member(key.stringValue, of: object, from: hint.object == object ? hint.nextKey : nil)
        if let value { decoder.memberHint = (object, decoder.tape.nodes[value].next) }
        return value
    }

    func require(_ key: any CodingKey) throws -> Int {
        guard let value = valueIndex(key) else {
            throw DecodingError.keyNotFound(key, .init(
                codingPath: path.keys, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return value
    }

    /// Nil for a missing key or a null value.
    func optional(_ key: any CodingKey) -> Int? {
        guard let value = valueIndex(key), decoder.tape.nodes[value].kind != .null else { return nil }
        return value
    }

    public func contains(_ key: any CodingKey) -> Bool { valueIndex(key) != nil }

    // MARK: Required members

    public func decode(_ type: String.Type, forKey key: any CodingKey) throws -> String {
        try decoder.readString(at: try require(key), path: .key(key, path))
    }

    public func decode(_ type: Bool.Type, forKey key: any CodingKey) throws -> Bool {
        try decoder.readBool(at: try require(key), path: .key(key, path))
    }

    public func decode(_ type: Int.Type, forKey key: any CodingKey) throws -> Int {
        try decoder.read(type, at: try require(key), path: .key(key, path))
    }

    public func decode(_ type: Int64.Type, forKey key: any CodingKey) throws -> Int64 {
        try decoder.read(type, at: try require(key), path: .key(key, path))
    }

    public func decode(_ type: UInt32.Type, forKey key: any CodingKey) throws -> UInt32 {
        try decoder.read(type, at: try require(key), path: .key(key, path))
    }

    public func decode(_ type: ATBytes.Type, forKey key: any CodingKey) throws -> ATBytes {
        try decoder.readBytes(at: try require(key), path: .key(key, path))
    }

    public func decode(_ type: [String].Type, forKey key: any CodingKey) throws -> [String] {
        try decoder.readStrings(at: try require(key), path: .key(key, path))
    }

    /// Any other member type, through `JSONTapeDecoder` (itself direct for `JSONObjectDecodable` types).
    public func decode<T: Decodable>(_ type: T.Type, forKey key: any CodingKey) throws -> T {
        try decoder.decode(T.self, at: try require(key), path: .key(key, path))
    }

    /// A member that reads itself, without the dynamic cast `JSONTapeDecoder` makes to find that out.
    public func decode<T: JSONObjectDecodable>(_ type: T.Type, forKey key: any CodingKey) throws -> T {
        try decoder.readObject(T.self, at: try require(key), path: .key(key, path))
    }

    public func decode<T: JSONObjectDecodable>(_ type: [T].Type, forKey key: any CodingKey) throws -> [T] {
        try decoder.readObjects(T.self, at: try require(key), path: .key(key, path))
    }

    // MARK: Optional members

    public func decodeIfPresent(_ type: String.Type, forKey key: any CodingKey) throws -> String? {
        guard let value = optional(key) else { return nil }
        return try decoder.readString(at: value, path: .key(key, path))
    }

    public func decodeIfPresent(_ type: Bool.Type, forKey key: any CodingKey) throws -> Bool? {
        guard let value = optional(key) else { return nil }
        return try decoder.readBool(at: value, path: .key(key, path))
    }

    public func decodeIfPresent(_ type: Int.Type, forKey key: any CodingKey) throws -> Int? {
        guard let value = optional(key) else { return nil }
        return try decoder.read(type, at: value, path: .key(key, path))
    }

    public func decodeIfPresent(_ type: Int64.Type, forKey key: any CodingKey) throws -> Int64? {
        guard let value = optional(key) else { return nil }
        return try decoder.read(type, at: value, path: .key(key, path))
    }

    public func decodeIfPresent(_ type: UInt32.Type, forKey key: any CodingKey) throws -> UInt32? {
        guard let value = optional(key) else { return nil }
        return try decoder.read(type, at: value, path: .key(key, path))
    }

    public func decodeIfPresent(_ type: ATBytes.Type, forKey key: any CodingKey) throws -> ATBytes? {
        guard let value = optional(key) else { return nil }
        return try decoder.readBytes(at: value, path: .key(key, path))
    }

    public func decodeIfPresent(_ type: [String].Type, forKey key: any CodingKey) throws -> [String]? {
        guard let value = optional(key) else { return nil }
        return try decoder.readStrings(at: value, path: .key(key, path))
    }

    public func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: any CodingKey) throws -> T? {
        guard let value = optional(key) else { return nil }
        return try decoder.decode(T.self, at: value, path: .key(key, path))
    }

    public func decodeIfPresent<T: JSONObjectDecodable>(_ type: T.Type, forKey key: any CodingKey) throws -> T? {
        guard let value = optional(key) else { return nil }
        return try decoder.readObject(T.self, at: value, path: .key(key, path))
    }

    public func decodeIfPresent<T: JSONObjectDecodable>(_ type: [T].Type, forKey key: any CodingKey) throws -> [T]? {
        guard let value = optional(key) else { return nil }
        return try decoder.readObjects(T.self, at: value, path: .key(key, path))
    }
}
