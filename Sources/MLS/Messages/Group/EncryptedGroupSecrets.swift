/// RFC 9420 §12.4.3.1: GroupSecrets encrypted to one new member's KeyPackage init key.
public struct EncryptedGroupSecrets: MLSCodable, Hashable, Sendable {
    /// The `KeyPackageRef` of the new member.
    public var newMember: [UInt8]
    public var encryptedGroupSecrets: HPKECiphertext

    public init(newMember: [UInt8], encryptedGroupSecrets: HPKECiphertext) {
        self.newMember = newMember
        self.encryptedGroupSecrets = encryptedGroupSecrets
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        newMember = try reader.readOpaque()
        encryptedGroupSecrets = try HPKECiphertext(from: &reader)
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(newMember)
        writer.write(encryptedGroupSecrets)
    }
}
