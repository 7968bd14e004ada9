/// RFC 9420 §12.4: `uint8 ProposalOrRefType`.
public enum ProposalOrRefType: UInt8, UInt8Selector, Sendable {
    case proposal = 1
    case reference = 2
}
