/// RFC 9420 §6.3.2: the encrypted sender of a PrivateMessage.
public struct SenderData: MLSCodable, Hashable, Sendable {
    public var leafIndex: UInt32
    public var generation: UInt32
    /// XORed into the first bytes of the content nonce.
    public var reuseGuard: [UInt8]

    public static let reuseGuardLength = 4

    /// `reuseGuard` must be 4 bytes; other lengths are cut or zero-padded to 4 so the encoding
    /// stays well-formed.
    public init(leafIndex: UInt32, generation: UInt32, reuseGuard: [UInt8]) {
        self.leafIndex = leafIndex
        self.generation = generation
        self.reuseGuard = Array((reuseGuard + [0, 0, 0, 0]).prefix(Self.reuseGuardLength))
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        leafIndex = try reader.readUInt32()
        generation = try reader.readUInt32()
        reuseGuard = try reader.readBytes(Self.reuseGuardLength)
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(leafIndex)
        writer.write(generation)
        writer.writeBytes((reuseGuard + [0, 0, 0, 0]).prefix(Self.reuseGuardLength))
    }
}
