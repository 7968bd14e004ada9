/// RFC 9420 §11.1: what every member must support.
public struct RequiredCapabilities: MLSCodable, Hashable, Sendable {
    public var extensionTypes: [ExtensionType]
    public var proposalTypes: [ProposalType]
    public var credentialTypes: [CredentialType]

    public init(extensionTypes: [ExtensionType] = [], proposalTypes: [ProposalType] = [], credentialTypes: [CredentialType] = []) {
        self.extensionTypes = extensionTypes
        self.proposalTypes = proposalTypes
        self.credentialTypes = credentialTypes
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        extensionTypes = try reader.readCodePoints()
        proposalTypes = try reader.readCodePoints()
        credentialTypes = try reader.readCodePoints()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeVector(extensionTypes)
        writer.writeVector(proposalTypes)
        writer.writeVector(credentialTypes)
    }
}
