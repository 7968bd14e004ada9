/// RFC 9420 §10: a client's signed offer to be added to groups.
public struct KeyPackage: MLSCodable, Hashable, Sendable {
    public var version: ProtocolVersion
    public var cipherSuite: UInt16
    public var initKey: [UInt8]
    public var leafNode: LeafNode
    public var extensions: [Extension]
    /// `SignWithLabel(., "KeyPackageTBS", KeyPackageTBS)`.
    public var signature: [UInt8]

    public init(
        version: ProtocolVersion = .mls10, cipherSuite: UInt16, initKey: [UInt8], leafNode: LeafNode,
        extensions: [Extension] = [], signature: [UInt8] = []
    ) {
        self.version = version
        self.cipherSuite = cipherSuite
        self.initKey = initKey
        self.leafNode = leafNode
        self.extensions = extensions
        self.signature = signature
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        let tbs = try KeyPackageTBS(from: &reader)
        version = tbs.version
        cipherSuite = tbs.cipherSuite
        initKey = tbs.initKey
        leafNode = tbs.leafNode
        extensions = tbs.extensions
        signature = try reader.readOpaque()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(tbs)
        writer.writeOpaque(signature)
    }

    /// The signed content.
    public var tbs: KeyPackageTBS {
        KeyPackageTBS(version: version, cipherSuite: cipherSuite, initKey: initKey, leafNode: leafNode, extensions: extensions)
    }
}
