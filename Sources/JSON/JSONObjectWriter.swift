import Basics

/// One JSON object being written by a `JSONObjectEncodable` type, member by member, straight into
/// the encoder's output. Mirrors `KeyedEncodingContainer`: `encode` writes a member, `encodeIfPresent`
/// leaves out a nil one (as synthesized conformances do). The text of every value is the stream
/// encoder's own (`JSONWriter`), so both paths write the same bytes.
public struct JSONObjectWriter {
    // Usable from inlinable code: the members that take a `JSONObjectEncodable` are inlined into
    // their callers, so that they run specialized for the caller's type (unspecialized, each
    // element of an array would be copied through value witnesses and its type metadata looked up).
    /// The encoding's output, shared with the stream encoder and the writers of nested objects.
    @usableFromInline let output: JSONOutput
    @usableFromInline var isEmpty = true

    /// Opens an object in `output`.
    @usableFromInline init(into output: JSONOutput) {
        self.output = output
        output.append(UInt8(ascii: "{"))
    }

    /// Closes the object.
    @usableFromInline func finish() {
        output.append(UInt8(ascii: "}"))
    }

    @usableFromInline mutating func begin(_ key: any CodingKey) {
        if !isEmpty { output.append(UInt8(ascii: ",")) }
        isEmpty = false
        JSONWriter.appendKey(key.stringValue, to: output)
    }

    @inlinable mutating func append(object value: some JSONObjectEncodable) {
        var nested = JSONObjectWriter(into: output)
        value.encode(json: &nested)
        nested.finish()
    }

    // MARK: Members

    public mutating func encode(_ value: String, forKey key: any CodingKey) {
        begin(key)
        JSONWriter.appendString(value, to: output)
    }

    public mutating func encode(_ value: Bool, forKey key: any CodingKey) {
        begin(key)
        JSONWriter.appendBool(value, to: output)
    }

    public mutating func encode(_ value: Int, forKey key: any CodingKey) {
        begin(key)
        JSONWriter.appendInteger(value, to: output)
    }

    public mutating func encode(_ value: Int64, forKey key: any CodingKey) {
        begin(key)
        JSONWriter.appendInteger(value, to: output)
    }

    public mutating func encode(_ value: UInt32, forKey key: any CodingKey) {
        begin(key)
        JSONWriter.appendInteger(value, to: output)
    }

    public mutating func encode(_ value: ATBytes, forKey key: any CodingKey) {
        begin(key)
        JSONWriter.appendBytes(value, to: output)
    }

    public mutating func encode(_ value: [String], forKey key: any CodingKey) {
        begin(key)
        JSONWriter.appendStrings(value, to: output)
    }

    /// A flat object of strings, its members in the dictionary's own order (as Codable writes them).
    public mutating func encode(_ value: [String: String], forKey key: any CodingKey) {
        begin(key)
        output.append(UInt8(ascii: "{"))
        var first = true
        for (name, text) in value {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.appendString(name, to: output)
            output.append(UInt8(ascii: ":"))
            JSONWriter.appendString(text, to: output)
        }
        output.append(UInt8(ascii: "}"))
    }

    @inlinable public mutating func encode<T: JSONObjectEncodable>(_ value: T, forKey key: any CodingKey) {
        begin(key)
        append(object: value)
    }

    @inlinable public mutating func encode<T: JSONObjectEncodable>(_ values: [T], forKey key: any CodingKey) {
        begin(key)
        output.append(UInt8(ascii: "["))
        for index in values.indices {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            append(object: values[index])
        }
        output.append(UInt8(ascii: "]"))
    }

    // MARK: Optional members

    public mutating func encodeIfPresent(_ value: String?, forKey key: any CodingKey) {
        if let value { encode(value, forKey: key) }
    }

    public mutating func encodeIfPresent(_ value: Bool?, forKey key: any CodingKey) {
        if let value { encode(value, forKey: key) }
    }

    public mutating func encodeIfPresent(_ value: Int?, forKey key: any CodingKey) {
        if let value { encode(value, forKey: key) }
    }

    public mutating func encodeIfPresent(_ value: Int64?, forKey key: any CodingKey) {
        if let value { encode(value, forKey: key) }
    }

    public mutating func encodeIfPresent(_ value: UInt32?, forKey key: any CodingKey) {
        if let value { encode(value, forKey: key) }
    }

    public mutating func encodeIfPresent(_ value: ATBytes?, forKey key: any CodingKey) {
        if let value { encode(value, forKey: key) }
    }

    public mutating func encodeIfPresent(_ value: [String]?, forKey key: any CodingKey) {
        if let value { encode(value, forKey: key) }
    }

    public mutating func encodeIfPresent(_ value: [String: String]?, forKey key: any CodingKey) {
        if let value { encode(value, forKey: key) }
    }

    @inlinable public mutating func encodeIfPresent<T: JSONObjectEncodable>(_ value: T?, forKey key: any CodingKey) {
        if let value { encode(value, forKey: key) }
    }

    @inlinable public mutating func encodeIfPresent<T: JSONObjectEncodable>(_ values: [T]?, forKey key: any CodingKey) {
        if let values { encode(values, forKey: key) }
    }
}
