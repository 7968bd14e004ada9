/// RFC 9420 §6.3.1: the additional data of a PrivateMessage's content encryption.
public struct PrivateContentAAD: MLSCodable, Hashable, Sendable {
    public var groupID: [UInt8]
    public var epoch: UInt64
    public var contentType: ContentType
    public var authenticatedData: [UInt8]

    public init(groupID: [UInt8], epoch: UInt64, contentType: ContentType, authenticatedData: [UInt8]) {
        self.groupID = groupID
        self.epoch = epoch
        self.contentType = contentType
        self.authenticatedData = authenticatedData
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        groupID = try reader.readOpaque()
        epoch = try reader.readUInt64()
        contentType = try ContentType(from: &reader)
        authenticatedData = try reader.readOpaque()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(groupID)
        writer.write(epoch)
        writer.write(contentType)
        writer.writeOpaque(authenticatedData)
    }
}
