/// RFC 9420 §8.4: names a pre-shared key, with a fresh nonce.
public struct PreSharedKeyID: MLSCodable, Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case external(pskID: [UInt8])
        case resumption(usage: ResumptionPSKUsage, pskGroupID: [UInt8], pskEpoch: UInt64)

        public var pskType: PSKType {
            switch self {
            case .external: .external
            case .resumption: .resumption
            }
        }
    }

    public var kind: Kind
    public var pskNonce: [UInt8]

    public init(kind: Kind, pskNonce: [UInt8]) {
        self.kind = kind
        self.pskNonce = pskNonce
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        switch try PSKType(from: &reader) {
        case .external:
            kind = .external(pskID: try reader.readOpaque())
        case .resumption:
            let usage = try ResumptionPSKUsage(from: &reader)
            let groupID = try reader.readOpaque()
            kind = .resumption(usage: usage, pskGroupID: groupID, pskEpoch: try reader.readUInt64())
        }
        pskNonce = try reader.readOpaque()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(kind.pskType)
        switch kind {
        case .external(let pskID):
            writer.writeOpaque(pskID)
        case .resumption(let usage, let groupID, let epoch):
            writer.write(usage)
            writer.writeOpaque(groupID)
            writer.write(epoch)
        }
        writer.writeOpaque(pskNonce)
    }
}
