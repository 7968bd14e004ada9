/// RFC 9420 §7.1: an interior node of the ratchet tree.
public struct ParentNode: MLSCodable, Hashable, Sendable {
    public var encryptionKey: [UInt8]
    public var parentHash: [UInt8]
    /// Leaf indices added below this node since it was last updated.
    public var unmergedLeaves: [UInt32]

    public init(encryptionKey: [UInt8], parentHash: [UInt8] = [], unmergedLeaves: [UInt32] = []) {
        self.encryptionKey = encryptionKey
        self.parentHash = parentHash
        self.unmergedLeaves = unmergedLeaves
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        encryptionKey = try reader.readOpaque()
        parentHash = try reader.readOpaque()
        unmergedLeaves = try reader.readUInt32Vector()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(encryptionKey)
        writer.writeOpaque(parentHash)
        writer.writeVector(unmergedLeaves)
    }
}
