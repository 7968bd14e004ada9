/// RFC 9420 §12.4.3: the signed group state a joiner needs.
public struct GroupInfo: MLSCodable, Hashable, Sendable {
    public var groupContext: GroupContext
    public var extensions: [Extension]
    public var confirmationTag: [UInt8]
    public var signer: UInt32
    /// `SignWithLabel(., "GroupInfoTBS", GroupInfoTBS)`.
    public var signature: [UInt8]

    public init(groupContext: GroupContext, extensions: [Extension] = [], confirmationTag: [UInt8], signer: UInt32, signature: [UInt8] = []) {
        self.groupContext = groupContext
        self.extensions = extensions
        self.confirmationTag = confirmationTag
        self.signer = signer
        self.signature = signature
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        let tbs = try GroupInfoTBS(from: &reader)
        groupContext = tbs.groupContext
        extensions = tbs.extensions
        confirmationTag = tbs.confirmationTag
        signer = tbs.signer
        signature = try reader.readOpaque()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(tbs)
        writer.writeOpaque(signature)
    }

    /// The signed content.
    public var tbs: GroupInfoTBS {
        GroupInfoTBS(groupContext: groupContext, extensions: extensions, confirmationTag: confirmationTag, signer: signer)
    }
}

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
