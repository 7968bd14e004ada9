/// RFC 9420 §7.2: a member's leaf in the ratchet tree.
public struct LeafNode: MLSCodable, Hashable, Sendable {
    public var encryptionKey: [UInt8]
    public var signatureKey: [UInt8]
    public var credential: Credential
    public var capabilities: Capabilities
    public var leafNodeSource: LeafNodeSource
    public var extensions: [Extension]
    /// `SignWithLabel(., "LeafNodeTBS", LeafNodeTBS)`.
    public var signature: [UInt8]

    public init(
        encryptionKey: [UInt8], signatureKey: [UInt8], credential: Credential, capabilities: Capabilities,
        leafNodeSource: LeafNodeSource, extensions: [Extension] = [], signature: [UInt8] = []
    ) {
        self.encryptionKey = encryptionKey
        self.signatureKey = signatureKey
        self.credential = credential
        self.capabilities = capabilities
        self.leafNodeSource = leafNodeSource
        self.extensions = extensions
        self.signature = signature
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        encryptionKey = try reader.readOpaque()
        signatureKey = try reader.readOpaque()
        credential = try Credential(from: &reader)
        capabilities = try Capabilities(from: &reader)
        leafNodeSource = try LeafNodeSource(from: &reader)
        extensions = try reader.readVector()
        signature = try reader.readOpaque()
    }

    public func encode(to writer: inout TLSWriter) {
        encodeSignedFields(to: &writer)
        writer.writeOpaque(signature)
    }

    /// The fields shared by LeafNode and LeafNodeTBS.
    func encodeSignedFields(to writer: inout TLSWriter) {
        writer.writeOpaque(encryptionKey)
        writer.writeOpaque(signatureKey)
        writer.write(credential)
        writer.write(capabilities)
        writer.write(leafNodeSource)
        writer.writeVector(extensions)
    }

    /// The signed content. `groupID` and `leafIndex` are needed, and only used, when the source is
    /// update or commit (RFC 9420 §7.2).
    public func tbs(groupID: [UInt8]? = nil, leafIndex: UInt32? = nil) -> LeafNodeTBS {
        LeafNodeTBS(leafNode: self, groupID: groupID, leafIndex: leafIndex)
    }
}
