/// RFC 9420 §12.4.3: a GroupInfo without its signature.
public struct GroupInfoTBS: MLSCodable, Hashable, Sendable {
    public var groupContext: GroupContext
    public var extensions: [Extension]
    public var confirmationTag: [UInt8]
    public var signer: UInt32

    public init(groupContext: GroupContext, extensions: [Extension], confirmationTag: [UInt8], signer: UInt32) {
        self.groupContext = groupContext
        self.extensions = extensions
        self.confirmationTag = confirmationTag
        self.signer = signer
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        groupContext = try GroupContext(from: &reader)
        extensions = try reader.readVector()
        confirmationTag = try reader.readOpaque()
        signer = try reader.readUInt32()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(groupContext)
        writer.writeVector(extensions)
        writer.writeOpaque(confirmationTag)
        writer.write(signer)
    }
}
