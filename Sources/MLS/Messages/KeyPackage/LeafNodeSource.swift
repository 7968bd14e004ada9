/// RFC 9420 §7.2: why a leaf node was made, with the field its source carries.
public enum LeafNodeSource: MLSCodable, Hashable, Sendable {
    case keyPackage(Lifetime)
    case update
    case commit(parentHash: [UInt8])

    public var sourceType: LeafNodeSourceType {
        switch self {
        case .keyPackage: .keyPackage
        case .update: .update
        case .commit: .commit
        }
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        switch try LeafNodeSourceType(from: &reader) {
        case .keyPackage: self = .keyPackage(try Lifetime(from: &reader))
        case .update: self = .update
        case .commit: self = .commit(parentHash: try reader.readOpaque())
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(sourceType)
        switch self {
        case .keyPackage(let lifetime): writer.write(lifetime)
        case .update: break
        case .commit(let parentHash): writer.writeOpaque(parentHash)
        }
    }
}
