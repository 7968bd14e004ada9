/// Reads the MQTT data representations (MQTT 5.0 §1.5) from a packet body. Every length is checked
/// against what remains before it is used, so any byte string either decodes or throws `MQTTError`.
public struct MQTTReader: Sendable {
    let bytes: [UInt8]
    var position: Int
    /// The end of the current section (the packet, or a property list); reads never pass it.
    var limit: Int

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.position = 0
        self.limit = bytes.count
    }

    public var remaining: Int { limit - position }
    public var isAtEnd: Bool { position >= limit }

    /// Throws unless every byte of the section has been read.
    public func finish(_ what: @autoclosure () -> String) throws(MQTTError) {
        if remaining != 0 { throw .malformed("\(remaining) unexpected bytes after \(what())") }
    }

    mutating func need(_ count: Int, _ what: @autoclosure () -> String) throws(MQTTError) {
        if count > remaining { throw .malformed("truncated \(what()): needs \(count) bytes, \(remaining) left") }
    }

    // MQTT 5.0 §1.5.1.
    public mutating func readByte(_ what: @autoclosure () -> String = "byte") throws(MQTTError) -> UInt8 {
        try need(1, what())
        defer { position += 1 }
        return bytes[position]
    }

    // MQTT 5.0 §1.5.2.
    public mutating func readUInt16(_ what: @autoclosure () -> String = "Two Byte Integer") throws(MQTTError) -> UInt16 {
        try need(2, what())
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    // MQTT 5.0 §1.5.3.
    public mutating func readUInt32(_ what: @autoclosure () -> String = "Four Byte Integer") throws(MQTTError) -> UInt32 {
        try need(4, what())
        defer { position += 4 }
        var value: UInt32 = 0
        for index in position..<(position + 4) { value = value << 8 | UInt32(bytes[index]) }
        return value
    }

    // MQTT 5.0 §1.5.5.
    public mutating func readVariableByteInteger(_ what: @autoclosure () -> String = "Variable Byte Integer") throws(MQTTError) -> Int {
        switch try VariableByteInteger.parse(bytes[position..<limit], at: position) {
        case .needMore: throw .malformed("truncated \(what())")
        case let .value(value, length):
            position += length
            return value
        }
    }

    // MQTT 5.0 §1.5.6: a Two Byte Integer length, then that many bytes.
    public mutating func readBinary(_ what: @autoclosure () -> String = "Binary Data") throws(MQTTError) -> [UInt8] {
        let count = Int(try readUInt16(what()))
        return try readBytes(count, what())
    }

    // MQTT 5.0 §1.5.4: well-formed UTF-8, no surrogates, no U+0000; anything else is a Malformed Packet.
    public mutating func readString(_ what: @autoclosure () -> String = "UTF-8 Encoded String") throws(MQTTError) -> String {
        let count = Int(try readUInt16(what()))
        try need(count, what())
        let slice = bytes[position..<(position + count)]
        do {
            try UTF8Validation.validate(slice)
        } catch {
            throw .malformed("\(what()) is not a valid UTF-8 Encoded String: \(error)")
        }
        position += count
        return String(decoding: slice, as: UTF8.self)
    }

    // MQTT 5.0 §1.5.7: two strings, both held to §1.5.4 [MQTT-1.5.7-1].
    public mutating func readStringPair(_ what: @autoclosure () -> String = "UTF-8 String Pair") throws(MQTTError) -> StringPair {
        let name = try readString(what())
        let value = try readString(what())
        return StringPair(name, value)
    }

    public mutating func readBytes(_ count: Int, _ what: @autoclosure () -> String = "bytes") throws(MQTTError) -> [UInt8] {
        try need(count, what())
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    /// Passes over `count` bytes without reading them.
    public mutating func skip(_ count: Int, _ what: @autoclosure () -> String = "bytes") throws(MQTTError) {
        try need(count, what())
        position += count
    }

    /// Everything left in the section (a PUBLISH payload).
    public mutating func readRest() -> [UInt8] {
        defer { position = limit }
        return Array(bytes[position..<limit])
    }

    /// Runs `body` with reads bounded to the next `count` bytes, which it must consume exactly.
    mutating func section<T>(_ count: Int, _ what: @autoclosure () -> String,
                             _ body: (inout MQTTReader) throws(MQTTError) -> T) throws(MQTTError) -> T {
        try need(count, what())
        let outer = limit
        limit = position + count
        let value = try body(&self)
        try finish(what())
        limit = outer
        return value
    }
}

/// A name-value pair (MQTT 5.0 §1.5.7), the value of a User Property.
public struct StringPair: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
    public var description: String { "\(name)=\(value)" }
}
