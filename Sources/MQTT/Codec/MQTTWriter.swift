/// Appends the MQTT data representations (MQTT 5.0 §1.5). Callers pass values already within the
/// encodable ranges (strings and binary data up to 65,535 bytes); the types that reach the wire from
/// outside (topics, reason strings) are bounded where they are built.
public struct MQTTWriter: Sendable {
    public var bytes: [UInt8]

    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func writeByte(_ value: UInt8) { bytes.append(value) }

    public mutating func writeUInt16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    public mutating func writeUInt32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    public mutating func writeVariableByteInteger(_ value: Int) { VariableByteInteger.encode(value, into: &bytes) }

    public mutating func writeBinary<C: Collection>(_ data: C) where C.Element == UInt8 {
        precondition(data.count <= 0xFFFF, "Binary Data longer than 65,535 bytes")
        writeUInt16(UInt16(data.count))
        bytes.append(contentsOf: data)
    }

    public mutating func writeString(_ string: String) { writeBinary(string.utf8) }

    public mutating func writeStringPair(_ pair: StringPair) {
        writeString(pair.name)
        writeString(pair.value)
    }

    public mutating func writeBytes<C: Collection>(_ data: C) where C.Element == UInt8 { bytes.append(contentsOf: data) }

    /// Bytes `string` takes as a UTF-8 Encoded String, length prefix included.
    public static func size(of string: String) -> Int { 2 + string.utf8.count }
}

extension String {
    /// The longest prefix of at most `maxBytes` UTF-8 bytes that ends on a character boundary: reason
    /// strings from the service are cut to fit a Two Byte length and the client's Maximum Packet Size.
    func truncatedUTF8(maxBytes: Int) -> String {
        if utf8.count <= maxBytes { return self }
        let bytes = Array(utf8)
        var cut = max(0, maxBytes)
        // Back off continuation bytes (10xxxxxx) so the cut falls between two scalars.
        while cut > 0, bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
        return String(decoding: bytes[..<cut], as: UTF8.self)
    }
}
