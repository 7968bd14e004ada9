/// RFC 9420 §7.6: one filtered-direct-path node's new key and its path secret, encrypted to each
/// member of the copath node's resolution.
public struct UpdatePathNode: MLSCodable, Hashable, Sendable {
    public var encryptionKey: [UInt8]
    public var encryptedPathSecret: [HPKECiphertext]

    public init(encryptionKey: [UInt8], encryptedPathSecret: [HPKECiphertext]) {
        self.encryptionKey = encryptionKey
        self.encryptedPathSecret = encryptedPathSecret
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        encryptionKey = try reader.readOpaque()
        encryptedPathSecret = try reader.readVector()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(encryptionKey)
        writer.writeVector(encryptedPathSecret)
    }
}
