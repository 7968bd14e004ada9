/// RFC 9420 §12.1 and §17.4: `uint16 ProposalType`. Unknown values are kept in capability lists;
/// a `Proposal` of an unknown type cannot be decoded because its length is not knowable.
public struct ProposalType: UInt16CodePoint, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let reserved = ProposalType(rawValue: 0)
    public static let add = ProposalType(rawValue: 1)
    public static let update = ProposalType(rawValue: 2)
    public static let remove = ProposalType(rawValue: 3)
    public static let psk = ProposalType(rawValue: 4)
    public static let reinit = ProposalType(rawValue: 5)
    public static let externalInit = ProposalType(rawValue: 6)
    public static let groupContextExtensions = ProposalType(rawValue: 7)
}
