/// An object being written; each call appends one member to the encoder's output.
struct JSONKeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONStreamEncoder
    /// Identifies this object among the encoder's open containers; 0 when it could not be opened.
    let serial: Int
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.writeNull()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        try encoder.write(value)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        try encoder.write(value)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        encoder.write(value)
    }


    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.beginMember(of: serial, key: key.stringValue)
        try encoder.encodeMember(value, key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(JSONKeyedWriter<NestedKey>(encoder: encoder, serial: nested(object: true, key), codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        JSONUnkeyedWriter(encoder: encoder, serial: nested(object: false, key), codingPath: codingPath + [key])
    }

    private func nested(object: Bool, _ key: Key) -> Int {
        encoder.beginNestedContainer(in: serial, key: key.stringValue, object: object)
    }

    // A streaming writer cannot hold a member open for later: the encoding fails instead.
    mutating func superEncoder() -> any Encoder { JSONStreamEncoder.unsupportedSuperEncoder(failing: encoder) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { JSONStreamEncoder.unsupportedSuperEncoder(failing: encoder) }
}

/// An array being written; each call appends one element.
struct JSONUnkeyedWriter: UnkeyedEncodingContainer {
    let encoder: JSONStreamEncoder
    let serial: Int
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(encoder: JSONStreamEncoder, serial: Int, codingPath: [any CodingKey]) {
        self.encoder = encoder
        self.serial = serial
        self.codingPath = codingPath
    }

    private mutating func begin() throws {
        try encoder.beginMember(of: serial, key: nil)
        count += 1
    }

    mutating func encodeNil() throws { try begin(); encoder.writeNull() }
    mutating func encode(_ value: Bool) throws { try begin(); encoder.write(value) }
    mutating func encode(_ value: String) throws { try begin(); encoder.write(value) }
    mutating func encode(_ value: Double) throws { try begin(); try encoder.write(value) }
    mutating func encode(_ value: Float) throws { try begin(); try encoder.write(value) }
    mutating func encode(_ value: Int) throws { try begin(); encoder.write(value) }
    mutating func encode(_ value: Int8) throws { try begin(); encoder.write(value) }
    mutating func encode(_ value: Int16) throws { try begin(); encoder.write(value) }
    mutating func encode(_ value: Int32) throws { try begin(); encoder.write(value) }
    mutating func encode(_ value: Int64) throws { try begin(); encoder.write(value) }
    mutating func encode(_ value: UInt) throws { try begin(); encoder.write(value) }
    mutating func encode(_ value: UInt8) throws { try begin(); encoder.write(value) }
    mutating func encode(_ value: UInt16) throws { try begin(); encoder.write(value) }
    mutating func encode(_ value: UInt32) throws { try begin(); encoder.write(value) }
    mutating func encode(_ value: UInt64) throws { try begin(); encoder.write(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = count
        try begin()
        try encoder.encodeMember(value, key: JSONIndexKey(index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = JSONIndexKey(count)
        return KeyedEncodingContainer(JSONKeyedWriter<NestedKey>(encoder: encoder, serial: nested(object: true), codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = JSONIndexKey(count)
        return JSONUnkeyedWriter(encoder: encoder, serial: nested(object: false), codingPath: codingPath + [key])
    }

    private mutating func nested(object: Bool) -> Int {
        count += 1
        return encoder.beginNestedContainer(in: serial, key: nil, object: object)
    }

    mutating func superEncoder() -> any Encoder { JSONStreamEncoder.unsupportedSuperEncoder(failing: encoder) }
}

extension JSONStreamEncoder {
    /// Fails `encoder`'s encoding and hands back a detached encoder whose output is never used.
    static func unsupportedSuperEncoder(failing encoder: JSONStreamEncoder) -> any Encoder {
        encoder.fail("superEncoder is not supported by the streaming JSON encoder")
        return JSONStreamEncoder()
    }
}
