/// Reads big-endian fields from one binary-format result cell, failing on truncation.
struct PGBinaryReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws(StoreError) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else {
            throw .decoding("truncated: needed \(size) bytes at offset \(offset), \(remaining) left")
        }
        var value: T = 0
        for byte in bytes[offset..<offset + size] { value = value << 8 | T(byte) }
        offset += size
        return value
    }

    mutating func readBytes(_ count: Int) throws(StoreError) -> [UInt8] {
        guard count >= 0, remaining >= count else {
            throw .decoding("truncated: needed \(count) bytes at offset \(offset), \(remaining) left")
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Decodes a whole cell that must hold exactly one integer of type `T`.
    static func exact<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8]) throws(StoreError) -> T {
        guard bytes.count == MemoryLayout<T>.size else {
            throw .decoding("expected \(MemoryLayout<T>.size) bytes, got \(bytes.count)")
        }
        var reader = PGBinaryReader(bytes)
        return try reader.read(T.self)
    }
}
