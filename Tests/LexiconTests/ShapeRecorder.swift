import Basics

/// A Decoder that reads no JSON: it hands every type the placeholder it asks for and records which
/// keys the type reads, as what, and whether with `decode` (required) or `decodeIfPresent`
/// (optional). Run on a type's synthesized `init(from:)`, it yields the type's JSON shape.
final class ShapeRecorder: Decoder {
    let codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any] = [:]
    fileprivate var fields: [String: FieldShape.Field]?
    fileprivate var element: FieldShape?
    fileprivate var single: FieldShape?

    struct Unsupported: Error, CustomStringConvertible {
        var description: String
    }

    /// The shape of `T` and a placeholder value of it.
    static func record<T: Decodable>(_ type: T.Type) throws -> (shape: FieldShape, value: T) {
        switch type {
        case is String.Type: return (.string, "" as! T)
        case is Bool.Type: return (.boolean, false as! T)
        case is Int.Type: return (.integer, 0 as! T)
        case is Int64.Type: return (.integer, Int64(0) as! T)
        case is Int32.Type: return (.integer, Int32(0) as! T)
        case is UInt32.Type: return (.integer, UInt32(0) as! T)
        case is UInt64.Type: return (.integer, UInt64(0) as! T)
        case is ATBytes.Type: return (.bytes, ATBytes([]) as! T)
        case is [String: String].Type: return (.unknown, [String: String]() as! T)
        default: break
        }
        let recorder = ShapeRecorder()
        let value = try T(from: recorder)
        if let fields = recorder.fields { return (.object(fields), value) }
        if let element = recorder.element { return (.array(element), value) }
        if let single = recorder.single { return (single, value) }
        throw Unsupported(description: "\(T.self) read nothing")
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        fields = fields ?? [:]
        return KeyedDecodingContainer(KeyedRecorder<Key>(recorder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { UnkeyedRecorder(recorder: self) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleRecorder(recorder: self) }

    fileprivate func field<T: Decodable>(_ key: some CodingKey, _ type: T.Type, required: Bool) throws -> T {
        let (shape, value) = try Self.record(type)
        if let known = fields?[key.stringValue], known.required || known.shape != shape {
            throw Unsupported(description: "\(key.stringValue) read twice")
        }
        fields?[key.stringValue] = FieldShape.Field(shape: shape, required: required)
        return value
    }
}

private struct KeyedRecorder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: ShapeRecorder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try recorder.field(key, type, required: true) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try recorder.field(key, type, required: true) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try recorder.field(key, type, required: true) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try unsupported(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try unsupported(key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try recorder.field(key, type, required: true) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try unsupported(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try unsupported(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try recorder.field(key, type, required: true) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try recorder.field(key, type, required: true) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try unsupported(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try unsupported(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try unsupported(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try recorder.field(key, type, required: true) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try recorder.field(key, type, required: true) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try recorder.field(key, type, required: false)
    }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try recorder.field(key, type, required: false) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try recorder.field(key, type, required: false) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try unsupported(key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try unsupported(key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try recorder.field(key, type, required: false) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try unsupported(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try unsupported(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try recorder.field(key, type, required: false) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try recorder.field(key, type, required: false) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try unsupported(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try unsupported(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try unsupported(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try recorder.field(key, type, required: false) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try recorder.field(key, type, required: false) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> { try unsupported(key) }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try unsupported(key) }
    func superDecoder() throws -> any Decoder { throw ShapeRecorder.Unsupported(description: "superDecoder") }
    func superDecoder(forKey key: Key) throws -> any Decoder { try unsupported(key) }

    /// Lexicon fields are strings, integers, booleans, bytes, arrays and objects: anything else
    /// (floats, narrow integers, hand-written nesting) has no lexicon type to compare with.
    private func unsupported<T>(_ key: Key) throws -> T {
        throw ShapeRecorder.Unsupported(description: "\(key.stringValue): a type the lexicons do not use")
    }
}

/// An array: reads one element to learn its shape, then reports the end.
private struct UnkeyedRecorder: UnkeyedDecodingContainer {
    let recorder: ShapeRecorder
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 1 }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex > 0 }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (shape, value) = try ShapeRecorder.record(type)
        recorder.element = shape
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw ShapeRecorder.Unsupported(description: "nested container in an array")
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw ShapeRecorder.Unsupported(description: "nested container in an array")
    }
    mutating func superDecoder() throws -> any Decoder { throw ShapeRecorder.Unsupported(description: "superDecoder") }
}

/// A single value: a RawRepresentable enum or a wrapper that decodes one primitive.
private struct SingleRecorder: SingleValueDecodingContainer {
    let recorder: ShapeRecorder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (shape, value) = try ShapeRecorder.record(type)
        recorder.single = shape
        return value
    }
}
