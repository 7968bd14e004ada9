/// RFC 9420 §12.4.3.1: the secrets a Welcome encrypts to each new member.
public struct GroupSecrets: MLSCodable, Hashable, Sendable {
    public var joinerSecret: [UInt8]
    public var pathSecret: PathSecret?
    public var psks: [PreSharedKeyID]

    public init(joinerSecret: [UInt8], pathSecret: PathSecret? = nil, psks: [PreSharedKeyID] = []) {
        self.joinerSecret = joinerSecret
        self.pathSecret = pathSecret
        self.psks = psks
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        joinerSecret = try reader.readOpaque()
        pathSecret = try reader.readOptional()
        psks = try reader.readVector()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(joinerSecret)
        writer.writeOptional(pathSecret)
        writer.writeVector(psks)
    }
}
