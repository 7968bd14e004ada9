/// A 16-bit IANA registry value (RFC 9420 §17) kept as its raw number, so unknown and GREASE values
/// decode and re-encode byte-exactly.
public protocol UInt16CodePoint: RawRepresentable, MLSCodable, Hashable, CustomStringConvertible
where RawValue == UInt16 {
    init(rawValue: UInt16)
}

extension UInt16CodePoint {
    public init(from reader: inout TLSReader) throws(DecodingError) {
        self.init(rawValue: try reader.readUInt16())
    }

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }

    /// RFC 9420 §13.5: GREASE values are 0x0A0A, 0x1A1A, …, 0xEAEA.
    public var isGREASE: Bool {
        let high = rawValue >> 8
        return high == rawValue & 0xFF && high & 0x0F == 0x0A && high != 0xFA
    }

    public var description: String { "\(Self.self)(0x" + String(rawValue, radix: 16) + ")" }
}

/// An 8-bit selector whose value decides what follows it. An unknown value leaves the length of the
/// rest unknowable, so decoding throws instead of keeping it.
public protocol UInt8Selector: RawRepresentable, MLSCodable, Hashable where RawValue == UInt8 {}

extension UInt8Selector {
    public init(from reader: inout TLSReader) throws(DecodingError) {
        let raw = try reader.readUInt8()
        guard let value = Self(rawValue: raw) else { throw .invalidValue("\(Self.self) \(raw)") }
        self = value
    }

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
}

extension TLSReader {
    /// A vector of `uint16` code points.
    public mutating func readCodePoints<T: UInt16CodePoint>(of: T.Type = T.self) throws(DecodingError) -> [T] {
        try readVector { (r: inout TLSReader) throws(DecodingError) in T(rawValue: try r.readUInt16()) }
    }

    /// `uint16 values<V>`.
    public mutating func readUInt16Vector() throws(DecodingError) -> [UInt16] {
        try readVector { (r: inout TLSReader) throws(DecodingError) in try r.readUInt16() }
    }

    /// `uint32 values<V>`.
    public mutating func readUInt32Vector() throws(DecodingError) -> [UInt32] {
        try readVector { (r: inout TLSReader) throws(DecodingError) in try r.readUInt32() }
    }
}

extension TLSWriter {
    public mutating func writeVector(_ values: [UInt16]) {
        writeVector { w in for value in values { w.write(value) } }
    }

    public mutating func writeVector(_ values: [UInt32]) {
        writeVector { w in for value in values { w.write(value) } }
    }
}
