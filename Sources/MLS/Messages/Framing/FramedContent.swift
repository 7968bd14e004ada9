/// RFC 9420 §6: a message's content with the group, epoch and sender it belongs to.
public struct FramedContent: MLSCodable, Hashable, Sendable {
    public var groupID: [UInt8]
    public var epoch: UInt64
    public var sender: Sender
    public var authenticatedData: [UInt8]
    public var content: Content

    public var contentType: ContentType { content.contentType }

    public init(groupID: [UInt8], epoch: UInt64, sender: Sender, authenticatedData: [UInt8] = [], content: Content) {
        self.groupID = groupID
        self.epoch = epoch
        self.sender = sender
        self.authenticatedData = authenticatedData
        self.content = content
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        groupID = try reader.readOpaque()
        epoch = try reader.readUInt64()
        sender = try Sender(from: &reader)
        authenticatedData = try reader.readOpaque()
        content = try Content(contentType: try ContentType(from: &reader), from: &reader)
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(groupID)
        writer.write(epoch)
        writer.write(sender)
        writer.writeOpaque(authenticatedData)
        writer.write(content.contentType)
        content.encodeBody(to: &writer)
    }
}
