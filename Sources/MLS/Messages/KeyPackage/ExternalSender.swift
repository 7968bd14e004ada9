/// RFC 9420 §12.1.8.1: a party outside the group allowed to send proposals.
public struct ExternalSender: MLSCodable, Hashable, Sendable {
    public var signatureKey: [UInt8]
    public var credential: Credential

    public init(signatureKey: [UInt8], credential: Credential) {
        self.signatureKey = signatureKey
        self.credential = credential
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        signatureKey = try reader.readOpaque()
        credential = try Credential(from: &reader)
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(signatureKey)
        writer.write(credential)
    }
}
