/// RFC 9420 §12.1: a proposed change to the group. The body of each case is the RFC's struct of the
/// same name (Add, Update, Remove, PreSharedKey, ReInit, ExternalInit, GroupContextExtensions).
/// Indirect so a vector of small proposals does not cost a KeyPackage-sized slot per entry.
public indirect enum Proposal: MLSCodable, Hashable, Sendable {
    case add(KeyPackage)
    case update(LeafNode)
    case remove(removed: UInt32)
    case preSharedKey(PreSharedKeyID)
    case reInit(ReInit)
    case externalInit(kemOutput: [UInt8])
    case groupContextExtensions([Extension])

    public var proposalType: ProposalType {
        switch self {
        case .add: .add
        case .update: .update
        case .remove: .remove
        case .preSharedKey: .psk
        case .reInit: .reinit
        case .externalInit: .externalInit
        case .groupContextExtensions: .groupContextExtensions
        }
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        let type = try ProposalType(from: &reader)
        self = try Proposal(type: type, body: &reader)
    }

    /// Decodes only the body of a proposal whose type is already known.
    public init(type: ProposalType, body reader: inout TLSReader) throws(DecodingError) {
        switch type {
        case .add: self = .add(try KeyPackage(from: &reader))
        case .update: self = .update(try LeafNode(from: &reader))
        case .remove: self = .remove(removed: try reader.readUInt32())
        case .psk: self = .preSharedKey(try PreSharedKeyID(from: &reader))
        case .reinit: self = .reInit(try ReInit(from: &reader))
        case .externalInit: self = .externalInit(kemOutput: try reader.readOpaque())
        case .groupContextExtensions: self = .groupContextExtensions(try reader.readVector())
        default: throw .invalidValue("unknown proposal type \(type.rawValue)")
        }
    }

    /// Decodes a body that must use every byte of `bytes`.
    public init(type: ProposalType, decodingBody bytes: [UInt8]) throws(DecodingError) {
        var reader = TLSReader(bytes)
        self = try Proposal(type: type, body: &reader)
        try reader.finish()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(proposalType)
        encodeBody(to: &writer)
    }

    /// Writes the body without the type.
    public func encodeBody(to writer: inout TLSWriter) {
        switch self {
        case .add(let keyPackage): writer.write(keyPackage)
        case .update(let leafNode): writer.write(leafNode)
        case .remove(let removed): writer.write(removed)
        case .preSharedKey(let psk): writer.write(psk)
        case .reInit(let reInit): writer.write(reInit)
        case .externalInit(let kemOutput): writer.writeOpaque(kemOutput)
        case .groupContextExtensions(let extensions): writer.writeVector(extensions)
        }
    }

    public func encodedBody() -> [UInt8] {
        var writer = TLSWriter()
        encodeBody(to: &writer)
        return writer.bytes
    }
}
