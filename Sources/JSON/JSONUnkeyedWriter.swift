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
