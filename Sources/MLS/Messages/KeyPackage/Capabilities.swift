/// RFC 9420 §7.2: what a client supports. Every list keeps unknown and GREASE values.
public struct Capabilities: MLSCodable, Hashable, Sendable {
    public var versions: [ProtocolVersion]
    public var cipherSuites: [UInt16]
    public var extensions: [ExtensionType]
    public var proposals: [ProposalType]
    public var credentials: [CredentialType]

    public init(
        versions: [ProtocolVersion] = [.mls10], cipherSuites: [UInt16], extensions: [ExtensionType] = [],
        proposals: [ProposalType] = [], credentials: [CredentialType] = [.basic]
    ) {
        self.versions = versions
        self.cipherSuites = cipherSuites
        self.extensions = extensions
        self.proposals = proposals
        self.credentials = credentials
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        versions = try reader.readCodePoints()
        cipherSuites = try reader.readUInt16Vector()
        extensions = try reader.readCodePoints()
        proposals = try reader.readCodePoints()
        credentials = try reader.readCodePoints()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeVector(versions)
        writer.writeVector(cipherSuites)
        writer.writeVector(extensions)
        writer.writeVector(proposals)
        writer.writeVector(credentials)
    }
}
