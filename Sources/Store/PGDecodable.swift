import Foundation

/// A Swift type read from a non-NULL result cell in binary format. `type` is the column's OID;
/// decoders accept every column type they can read without loss and reject the rest.
public protocol PGDecodable: Sendable {
    static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> Self
}

extension Int64: PGDecodable {
    public static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> Int64 {
        switch type {
        case .int8: return try PGBinaryReader.exact(Int64.self, bytes)
        case .int4: return Int64(try PGBinaryReader.exact(Int32.self, bytes))
        case .int2: return Int64(try PGBinaryReader.exact(Int16.self, bytes))
        case .oid: return Int64(try PGBinaryReader.exact(UInt32.self, bytes))
        case .numeric:
            // sum(bigint) and similar aggregates return numeric.
            let text = try PGNumeric.string(from: bytes)
            guard let value = Int64(text) else { throw .decoding("numeric \(text) is not a 64-bit integer") }
            return value
        default: throw .decoding("cannot read \(type) as an integer")
        }
    }
}

extension Int: PGDecodable {
    public static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> Int {
        try narrow(Int64.decode(bytes, type: type))
    }
}

extension Int32: PGDecodable {
    public static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> Int32 {
        try narrow(Int64.decode(bytes, type: type))
    }
}

extension Int16: PGDecodable {
    public static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> Int16 {
        try narrow(Int64.decode(bytes, type: type))
    }
}

private func narrow<T: FixedWidthInteger>(_ value: Int64) throws(StoreError) -> T {
    guard let narrowed = T(exactly: value) else { throw .decoding("\(value) does not fit in \(T.self)") }
    return narrowed
}

extension Bool: PGDecodable {
    public static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> Bool {
        guard type == .bool else { throw .decoding("cannot read \(type) as Bool") }
        guard bytes.count == 1 else { throw .decoding("expected 1 byte, got \(bytes.count)") }
        return bytes[0] != 0
    }
}

extension Double: PGDecodable {
    public static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> Double {
        switch type {
        case .float8: return Double(bitPattern: try PGBinaryReader.exact(UInt64.self, bytes))
        case .float4: return Double(Float(bitPattern: try PGBinaryReader.exact(UInt32.self, bytes)))
        case .numeric:
            let text = try PGNumeric.string(from: bytes)
            guard let value = Double(text) else { throw .decoding("numeric \(text) is not a Double") }
            return value
        default: throw .decoding("cannot read \(type) as Double")
        }
    }
}

extension String: PGDecodable {
    public static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> String {
        if type.isTextual || type == .char { return try utf8(bytes) }
        switch type {
        case .jsonb:
            // jsonb_send prefixes the text with a format version, currently 1.
            guard bytes.first == 1 else { throw .decoding("unknown jsonb format version") }
            return try utf8(Array(bytes.dropFirst()))
        case .numeric: return try PGNumeric.string(from: bytes)
        case .uuid: return try UUID.decode(bytes, type: type).uuidString.lowercased()
        default: throw .decoding("cannot read \(type) as String")
        }
    }

    private static func utf8(_ bytes: [UInt8]) throws(StoreError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .decoding("invalid UTF-8") }
        return text
    }
}

extension Array: PGDecodable where Element == UInt8 {
    public static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> [UInt8] {
        guard type == .bytea else { throw .decoding("cannot read \(type) as bytes") }
        return bytes
    }
}

extension Data: PGDecodable {
    public static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> Data {
        Data(try [UInt8].decode(bytes, type: type))
    }
}

extension Date: PGDecodable {
    public static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> Date {
        switch type {
        // timestamp without time zone is read as UTC.
        case .timestamptz, .timestamp:
            return PGTimestamp.date(fromMicroseconds: try PGBinaryReader.exact(Int64.self, bytes))
        case .date:
            let days = try PGBinaryReader.exact(Int32.self, bytes)
            switch days {
            case .max: return .distantFuture
            case .min: return .distantPast
            default: return Date(timeIntervalSince1970: PGTimestamp.epochOffset + Double(days) * 86_400)
            }
        default: throw .decoding("cannot read \(type) as Date")
        }
    }
}

extension UUID: PGDecodable {
    public static func decode(_ bytes: [UInt8], type: PGType) throws(StoreError) -> UUID {
        guard type == .uuid else { throw .decoding("cannot read \(type) as UUID") }
        guard bytes.count == 16 else { throw .decoding("expected 16 bytes, got \(bytes.count)") }
        let b = bytes
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}

/// Decodes the binary form of a one-dimensional array (`array_send`).
enum PGArrayDecoder {
    static func decode<T: PGDecodable>(_ bytes: [UInt8], as _: T.Type) throws(StoreError) -> [T?] {
        var reader = PGBinaryReader(bytes)
        let dimensions = try reader.read(Int32.self)
        _ = try reader.read(Int32.self)  // has-null flag; each element says so itself
        let elementType = PGType(rawValue: try reader.read(UInt32.self))
        if dimensions == 0 {
            guard reader.remaining == 0 else { throw .decoding("array: trailing bytes") }
            return []
        }
        guard dimensions == 1 else { throw .decoding("array: \(dimensions) dimensions, only 1 is supported") }
        let count = Int(try reader.read(Int32.self))
        _ = try reader.read(Int32.self)  // lower bound
        // Each element needs at least its 4-byte length, which bounds a hostile count.
        guard count >= 0, count <= reader.remaining / 4 else { throw .decoding("array: bad element count \(count)") }
        var elements: [T?] = []
        elements.reserveCapacity(count)
        for _ in 0..<count {
            let length = try reader.read(Int32.self)
            if length == -1 {
                elements.append(nil)
                continue
            }
            elements.append(try T.decode(try reader.readBytes(Int(length)), type: elementType))
        }
        guard reader.remaining == 0 else { throw .decoding("array: trailing bytes") }
        return elements
    }
}
