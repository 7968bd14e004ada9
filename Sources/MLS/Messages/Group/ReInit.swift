/// RFC 9420 §12.1.5: the parameters of the group that replaces this one.
public struct ReInit: MLSCodable, Hashable, Sendable {
    public var groupID: [UInt8]
    public var version: ProtocolVersion
    public var cipherSuite: UInt16
    public var extensions: [Extension]

    public init(groupID: [UInt8], version: ProtocolVersion = .mls10, cipherSuite: UInt16, extensions: [Extension] = []) {
        self.groupID = groupID
        self.version = version
        self.cipherSuite = cipherSuite
        self.extensions = extensions
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        groupID = try reader.readOpaque()
        version = try ProtocolVersion(from: &reader)
        cipherSuite = try reader.readUInt16()
        extensions = try reader.readVector()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(groupID)
        writer.write(version)
        writer.write(cipherSuite)
        writer.writeVector(extensions)
    }
}
