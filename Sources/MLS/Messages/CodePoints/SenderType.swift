/// RFC 9420 §6: `uint8 SenderType`.
public enum SenderType: UInt8, UInt8Selector, Sendable {
    case member = 1
    case external = 2
    case newMemberProposal = 3
    case newMemberCommit = 4
}
