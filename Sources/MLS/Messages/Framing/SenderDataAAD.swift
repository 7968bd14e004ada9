/// RFC 9420 §6.3.2: the additional data of a PrivateMessage's sender-data encryption.
public struct SenderDataAAD: MLSCodable, Hashable, Sendable {
    public var groupID: [UInt8]
    public var epoch: UInt64
    public var contentType: ContentType

    public init(groupID: [UInt8], epoch: UInt64, contentType: ContentType) {
        self.groupID = groupID
        self.epoch = epoch
        self.contentType = contentType
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        groupID = try reader.readOpaque()
        epoch = try reader.readUInt64()
        contentType = try ContentType(from: &reader)
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(groupID)
        writer.write(epoch)
        writer.write(contentType)
    }
}
