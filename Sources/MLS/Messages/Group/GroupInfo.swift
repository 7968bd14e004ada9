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
