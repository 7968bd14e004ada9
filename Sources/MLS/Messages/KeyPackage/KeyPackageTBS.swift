/// RFC 9420 §10: a KeyPackage without its signature.
public struct KeyPackageTBS: MLSCodable, Hashable, Sendable {
    public var version: ProtocolVersion
    public var cipherSuite: UInt16
    public var initKey: [UInt8]
    public var leafNode: LeafNode
    public var extensions: [Extension]

    public init(version: ProtocolVersion, cipherSuite: UInt16, initKey: [UInt8], leafNode: LeafNode, extensions: [Extension]) {
        self.version = version
        self.cipherSuite = cipherSuite
        self.initKey = initKey
        self.leafNode = leafNode
        self.extensions = extensions
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        version = try ProtocolVersion(from: &reader)
        cipherSuite = try reader.readUInt16()
        initKey = try reader.readOpaque()
        leafNode = try LeafNode(from: &reader)
        extensions = try reader.readVector()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(version)
        writer.write(cipherSuite)
        writer.writeOpaque(initKey)
        writer.write(leafNode)
        writer.writeVector(extensions)
    }
}
