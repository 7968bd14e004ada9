/// A sealed proposal (a PrivateMessage, RFC 9420 §6.3) whose header `SealedCommitVerifier` checked:
/// this group, the current epoch, content type proposal. Its content, sender and signature stay
/// unknown to the service; its effect shows in the tree of the GroupInfo of the commit that covers it.
public struct VerifiedSealedProposal: Sendable {
    public let message: PrivateMessage
    public var epoch: UInt64 { message.epoch }
}
