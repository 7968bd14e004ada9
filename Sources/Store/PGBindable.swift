import Foundation

/// How a value travels on the wire: PostgreSQL's text or binary representation.
public enum PGFormat: Int32, Sendable {
    case text = 0
    case binary = 1
}

/// One encoded parameter: its declared type, wire format and bytes.
public struct PGBinding: Sendable, Equatable {
    public var type: PGType
    public var format: PGFormat
    public var bytes: [UInt8]

    public init(type: PGType, format: PGFormat, bytes: [UInt8]) {
        self.type = type
        self.format = format
        self.bytes = bytes
    }
}

/// A Swift value that can be sent as a statement parameter (`$1`, `$2`, …). Values are always
/// bound, never spliced into SQL text. Pass `nil` in the parameter array for SQL NULL.
public protocol PGBindable: Sendable {
    var pgBinding: PGBinding { get }
}

// Binary forms follow each type's `*send` function in the PostgreSQL sources: big-endian integers,
// IEEE 754 floats, raw bytes for bytea, microseconds since 2000-01-01 for timestamptz.

extension Int64: PGBindable {
    public var pgBinding: PGBinding { PGBinding(type: .int8, format: .binary, bytes: .bigEndian(self)) }
}

extension Int: PGBindable {
    public var pgBinding: PGBinding { Int64(self).pgBinding }
}

extension Int32: PGBindable {
    public var pgBinding: PGBinding { PGBinding(type: .int4, format: .binary, bytes: .bigEndian(self)) }
}

extension Int16: PGBindable {
    public var pgBinding: PGBinding { PGBinding(type: .int2, format: .binary, bytes: .bigEndian(self)) }
}

extension Bool: PGBindable {
    public var pgBinding: PGBinding { PGBinding(type: .bool, format: .binary, bytes: [self ? 1 : 0]) }
}

extension Double: PGBindable {
    public var pgBinding: PGBinding { PGBinding(type: .float8, format: .binary, bytes: .bigEndian(bitPattern)) }
}

/// Strings go as text with an unspecified type, so the server infers the column's type: the same
/// `String` binds to text, varchar, jsonb, uuid or an enum column without a cast.
extension String: PGBindable {
    public var pgBinding: PGBinding { PGBinding(type: .unspecified, format: .text, bytes: Array(utf8)) }
}

/// bytea in binary form: the bytes are sent as they are, with no hex escaping.
extension Array: PGBindable where Element == UInt8 {
    public var pgBinding: PGBinding { PGBinding(type: .bytea, format: .binary, bytes: self) }
}

extension Data: PGBindable {
    public var pgBinding: PGBinding { PGBinding(type: .bytea, format: .binary, bytes: [UInt8](self)) }
}

/// timestamptz: microseconds since 2000-01-01 00:00:00 UTC, rounded to the nearest microsecond.
extension Date: PGBindable {
    public var pgBinding: PGBinding {
        PGBinding(type: .timestamptz, format: .binary, bytes: .bigEndian(PGTimestamp.microseconds(from: self)))
    }
}

extension UUID: PGBindable {
    public var pgBinding: PGBinding {
        let u = uuid
        let bytes = [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]
        return PGBinding(type: .uuid, format: .binary, bytes: bytes)
    }
}

extension [UInt8] {
    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        var out: [UInt8] = []
        out.appendBigEndian(value)
        return out
    }

    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        for shift in stride(from: T.bitWidth - 8, through: 0, by: -8) {
            append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
}

/// The PostgreSQL epoch and the conversions between it and `Date`.
enum PGTimestamp {
    /// Seconds from 1970-01-01 to 2000-01-01.
    static let epochOffset: Double = 946_684_800

    static func microseconds(from date: Date) -> Int64 {
        let micros = ((date.timeIntervalSince1970 - epochOffset) * 1_000_000).rounded()
        // PostgreSQL's ±infinity are Int64.max and Int64.min.
        if micros >= Double(Int64.max) { return .max }
        if micros <= Double(Int64.min) { return .min }
        return Int64(micros)
    }

    static func date(fromMicroseconds micros: Int64) -> Date {
        switch micros {
        case .max: .distantFuture
        case .min: .distantPast
        default: Date(timeIntervalSince1970: epochOffset + Double(micros) / 1_000_000)
        }
    }
}
