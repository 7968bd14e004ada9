/// RFC 9420 §12.4: a proposal inline in a commit, or the reference of one sent earlier.
public enum ProposalOrRef: MLSCodable, Hashable, Sendable {
    case proposal(Proposal)
    /// `ProposalRef`: `MakeProposalRef` of the AuthenticatedContent that carried it.
    case reference([UInt8])

    public var type: ProposalOrRefType {
        switch self {
        case .proposal: .proposal
        case .reference: .reference
        }
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        switch try ProposalOrRefType(from: &reader) {
        case .proposal: self = .proposal(try Proposal(from: &reader))
        case .reference: self = .reference(try reader.readOpaque())
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(type)
        switch self {
        case .proposal(let proposal): writer.write(proposal)
        case .reference(let reference): writer.writeOpaque(reference)
        }
    }
}
