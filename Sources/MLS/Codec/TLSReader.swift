/// Reads the TLS presentation language with MLS variable-length vectors (RFC 9420 §2.1).
///
/// Every length is checked against what remains before it is used, and nesting is bounded, so any
/// byte string either decodes or throws a `DecodingError`. `limits` bounds how many entries a vector
/// may hold, checked before each entry is kept (a blank tree node is one byte on the wire but a
/// pointer in memory), so a reader of untrusted input never holds more than it allows.
public struct TLSReader: Sendable {
    public static let maxDepth = 64

    let bytes: [UInt8]
    var position: Int
    /// The end of the innermost vector being read; reads never pass it.
    var limit: Int
    var depth = 0
    public let limits: DecodingLimits

    public init(_ bytes: [UInt8], limits: DecodingLimits = .unlimited) {
        self.bytes = bytes
        self.position = 0
        self.limit = bytes.count
        self.limits = limits
    }

    /// Bytes left before the current limit.
    public var remaining: Int { limit - position }
    public var isAtEnd: Bool { position >= limit }

    /// Throws unless every byte has been read.
    public func finish() throws(DecodingError) {
        if remaining != 0 { throw .trailingBytes(remaining) }
    }

    mutating func need(_ count: Int) throws(DecodingError) {
        if count < 0 || count > remaining { throw .truncated(needed: count, remaining: remaining) }
    }

    public mutating func readUInt8() throws(DecodingError) -> UInt8 {
        try need(1)
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func readUInt16() throws(DecodingError) -> UInt16 {
        UInt16(try readBigEndian(2))
    }

    public mutating func readUInt32() throws(DecodingError) -> UInt32 {
        UInt32(try readBigEndian(4))
    }

    public mutating func readUInt64() throws(DecodingError) -> UInt64 {
        try readBigEndian(8)
    }

    mutating func readBigEndian(_ count: Int) throws(DecodingError) -> UInt64 {
        try need(count)
        var value: UInt64 = 0
        for i in position..<(position + count) { value = value << 8 | UInt64(bytes[i]) }
        position += count
        return value
    }

    /// Reads exactly `count` bytes.
    public mutating func readBytes(_ count: Int) throws(DecodingError) -> [UInt8] {
        try need(count)
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    /// RFC 9420 §2.1.2: a 1, 2 or 4 byte length whose top two bits give its size; the `0b11` prefix is
    /// reserved and the minimum encoding is required.
    public mutating func readVarint() throws(DecodingError) -> Int {
        let first = try readUInt8()
        let value: Int
        switch first >> 6 {
        case 0:
            return Int(first)
        case 1:
            value = Int(first & 0x3f) << 8 | Int(try readUInt8())
            if value < 64 { throw .invalidVarint }
        case 2:
            value = Int(first & 0x3f) << 24 | Int(try readBigEndian(3))
            if value < 16384 { throw .invalidVarint }
        default:
            throw .invalidVarint
        }
        return value
    }

    /// `opaque data<V>`.
    public mutating func readOpaque() throws(DecodingError) -> [UInt8] {
        let count = try readVarint()
        return try readBytes(count)
    }

    /// `T items<V>`: a varint byte length, then elements until exactly that many bytes are used; at
    /// most `maxCount` of them, and never more than `limits.maxVectorElements`.
    public mutating func readVector<T>(
        maxCount: Int = .max, _ element: (inout TLSReader) throws(DecodingError) -> T
    ) throws(DecodingError) -> [T] {
        let allowed = min(maxCount, limits.maxVectorElements)
        let count = try readVarint()
        try need(count)
        let end = position + count
        let outerLimit = limit
        depth += 1
        defer {
            limit = outerLimit
            depth -= 1
        }
        if depth > Self.maxDepth { throw .depthExceeded }
        limit = end
        var items: [T] = []
        while position < end {
            if items.count == allowed { throw .tooManyElements(limit: allowed) }
            let before = position
            items.append(try element(&self))
            // An element that reads nothing would loop forever on hostile input.
            if position == before { throw .invalidValue("vector element consumed no bytes") }
        }
        return items
    }

    /// A vector of decodable elements.
    public mutating func readVector<T: MLSDecodable>(of: T.Type = T.self, maxCount: Int = .max) throws(DecodingError) -> [T] {
        try readVector(maxCount: maxCount) { (r: inout TLSReader) throws(DecodingError) in try T(from: &r) }
    }

    /// `optional<T>`: a presence byte of 0 or 1 (RFC 9420 §2.1.3).
    public mutating func readOptional<T>(_ value: (inout TLSReader) throws(DecodingError) -> T) throws(DecodingError) -> T? {
        switch try readUInt8() {
        case 0: return nil
        case 1: return try value(&self)
        case let tag: throw .invalidValue("optional presence byte \(tag)")
        }
    }

    public mutating func readOptional<T: MLSDecodable>(of: T.Type = T.self) throws(DecodingError) -> T? {
        try readOptional { (r: inout TLSReader) throws(DecodingError) in try T(from: &r) }
    }

    /// Runs `body` one nesting level deeper, so recursive structures stay bounded.
    public mutating func nested<T>(_ body: (inout TLSReader) throws(DecodingError) -> T) throws(DecodingError) -> T {
        depth += 1
        if depth > Self.maxDepth { throw .depthExceeded }
        defer { depth -= 1 }
        return try body(&self)
    }

    /// The bytes from `start` to the current position: for hashing exactly what was decoded.
    public func bytesRead(from start: Int) -> ArraySlice<UInt8> { bytes[start..<position] }
    public var offset: Int { position }
}
