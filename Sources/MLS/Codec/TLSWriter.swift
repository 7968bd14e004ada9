/// Writes the TLS presentation language with MLS variable-length vectors (RFC 9420 §2.1).
public struct TLSWriter: Sendable {
    /// The largest length a varint can carry (RFC 9420 §2.1.2: 30 bits).
    public static let maxVarint = (1 << 30) - 1

    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func write(_ value: UInt8) { bytes.append(value) }
    public mutating func write(_ value: UInt16) { writeBigEndian(UInt64(value), count: 2) }
    public mutating func write(_ value: UInt32) { writeBigEndian(UInt64(value), count: 4) }
    public mutating func write(_ value: UInt64) { writeBigEndian(value, count: 8) }

    mutating func writeBigEndian(_ value: UInt64, count: Int) {
        for shift in stride(from: (count - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// Raw bytes with no length prefix.
    public mutating func writeBytes<C: Collection>(_ data: C) where C.Element == UInt8 {
        bytes.append(contentsOf: data)
    }

    /// RFC 9420 §2.1.2, minimum encoding. Lengths above 2^30-1 cannot be expressed; callers bound
    /// their inputs well below that, so reaching it is a programming error.
    public mutating func writeVarint(_ value: Int) {
        precondition(value >= 0 && value <= Self.maxVarint, "MLS varint out of range")
        if value < 64 {
            bytes.append(UInt8(value))
        } else if value < 16384 {
            bytes.append(UInt8(0x40 | (value >> 8)))
            bytes.append(UInt8(value & 0xff))
        } else {
            writeBigEndian(UInt64(0x8000_0000 | value), count: 4)
        }
    }

    /// `opaque data<V>`.
    public mutating func writeOpaque<C: Collection>(_ data: C) where C.Element == UInt8 {
        writeVarint(data.count)
        bytes.append(contentsOf: data)
    }

    /// `T items<V>`: `body` writes the elements, then the byte length is put in front of them.
    public mutating func writeVector(_ body: (inout TLSWriter) -> Void) {
        let start = bytes.count
        body(&self)
        let length = bytes.count - start
        var prefix = TLSWriter(capacity: 4)
        prefix.writeVarint(length)
        bytes.insert(contentsOf: prefix.bytes, at: start)
    }

    public mutating func writeVector<T: MLSEncodable>(_ items: [T]) {
        writeVector { w in for item in items { item.encode(to: &w) } }
    }

    /// `optional<T>` (RFC 9420 §2.1.3).
    public mutating func writeOptional<T>(_ value: T?, _ body: (inout TLSWriter, T) -> Void) {
        if let value {
            write(UInt8(1))
            body(&self, value)
        } else {
            write(UInt8(0))
        }
    }

    public mutating func writeOptional<T: MLSEncodable>(_ value: T?) {
        writeOptional(value) { w, v in v.encode(to: &w) }
    }

    public mutating func write<T: MLSEncodable>(_ value: T) { value.encode(to: &self) }
}
