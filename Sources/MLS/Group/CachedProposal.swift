/// A proposal received this epoch as a standalone message, kept so that commits can cover it by
/// reference (RFC 9420 §12.4). `ref` = MakeProposalRef(AuthenticatedContent) (§5.2).
public struct CachedProposal: Sendable, Hashable {
    public let ref: [UInt8]
    public let proposal: Proposal
    public let sender: Sender

    public init(ref: [UInt8], proposal: Proposal, sender: Sender) {
        self.ref = ref
        self.proposal = proposal
        self.sender = sender
    }
}

/// One proposal a commit covers, with its proposer; `ref` is nil for a proposal sent inline.
public struct ResolvedProposal: Sendable, Hashable {
    public let proposal: Proposal
    public let sender: Sender
    public let ref: [UInt8]?
}
