/// RFC 9420 §12.4.3.1: group secrets for each new member and the encrypted GroupInfo.
public struct Welcome: MLSCodable, Hashable, Sendable {
    public var cipherSuite: UInt16
    public var secrets: [EncryptedGroupSecrets]
    public var encryptedGroupInfo: [UInt8]

    public init(cipherSuite: UInt16, secrets: [EncryptedGroupSecrets], encryptedGroupInfo: [UInt8]) {
        self.cipherSuite = cipherSuite
        self.secrets = secrets
        self.encryptedGroupInfo = encryptedGroupInfo
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        cipherSuite = try reader.readUInt16()
        secrets = try reader.readVector()
        encryptedGroupInfo = try reader.readOpaque()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(cipherSuite)
        writer.writeVector(secrets)
        writer.writeOpaque(encryptedGroupInfo)
    }
}
