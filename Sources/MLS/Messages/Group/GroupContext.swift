/// RFC 9420 §8.1: the group state every member agrees on in an epoch.
public struct GroupContext: MLSCodable, Hashable, Sendable {
    public var version: ProtocolVersion
    public var cipherSuite: UInt16
    public var groupID: [UInt8]
    public var epoch: UInt64
    public var treeHash: [UInt8]
    public var confirmedTranscriptHash: [UInt8]
    public var extensions: [Extension]

    public init(
        version: ProtocolVersion = .mls10, cipherSuite: UInt16, groupID: [UInt8], epoch: UInt64,
        treeHash: [UInt8], confirmedTranscriptHash: [UInt8], extensions: [Extension] = []
    ) {
        self.version = version
        self.cipherSuite = cipherSuite
        self.groupID = groupID
        self.epoch = epoch
        self.treeHash = treeHash
        self.confirmedTranscriptHash = confirmedTranscriptHash
        self.extensions = extensions
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        version = try ProtocolVersion(from: &reader)
        cipherSuite = try reader.readUInt16()
        groupID = try reader.readOpaque()
        epoch = try reader.readUInt64()
        treeHash = try reader.readOpaque()
        confirmedTranscriptHash = try reader.readOpaque()
        extensions = try reader.readVector()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(version)
        writer.write(cipherSuite)
        writer.writeOpaque(groupID)
        writer.write(epoch)
        writer.writeOpaque(treeHash)
        writer.writeOpaque(confirmedTranscriptHash)
        writer.writeVector(extensions)
    }
}
