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
