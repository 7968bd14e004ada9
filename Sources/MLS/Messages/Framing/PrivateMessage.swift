/// RFC 9420 §6.3: an encrypted message; sender data and content are opaque at this layer.
public struct PrivateMessage: MLSCodable, Hashable, Sendable {
    public var groupID: [UInt8]
    public var epoch: UInt64
    public var contentType: ContentType
    public var authenticatedData: [UInt8]
    public var encryptedSenderData: [UInt8]
    public var ciphertext: [UInt8]

    public init(
        groupID: [UInt8], epoch: UInt64, contentType: ContentType, authenticatedData: [UInt8] = [],
        encryptedSenderData: [UInt8], ciphertext: [UInt8]
    ) {
        self.groupID = groupID
        self.epoch = epoch
        self.contentType = contentType
        self.authenticatedData = authenticatedData
        self.encryptedSenderData = encryptedSenderData
        self.ciphertext = ciphertext
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        groupID = try reader.readOpaque()
        epoch = try reader.readUInt64()
        contentType = try ContentType(from: &reader)
        authenticatedData = try reader.readOpaque()
        encryptedSenderData = try reader.readOpaque()
        ciphertext = try reader.readOpaque()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(groupID)
        writer.write(epoch)
        writer.write(contentType)
        writer.writeOpaque(authenticatedData)
        writer.writeOpaque(encryptedSenderData)
        writer.writeOpaque(ciphertext)
    }

    /// The additional data for the content AEAD.
    public var contentAAD: PrivateContentAAD {
        PrivateContentAAD(groupID: groupID, epoch: epoch, contentType: contentType, authenticatedData: authenticatedData)
    }

    /// The additional data for the sender-data AEAD.
    public var senderDataAAD: SenderDataAAD {
        SenderDataAAD(groupID: groupID, epoch: epoch, contentType: contentType)
    }
}
