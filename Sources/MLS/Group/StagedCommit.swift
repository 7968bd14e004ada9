/// A commit checked and applied to the public state but not yet taken on (RFC 9420 §12.4.2): the
/// next epoch's tree and GroupContext, and what changed. Both faces build it the same way; the
/// member then runs the key schedule and checks the confirmation tag.
public struct StagedCommit: Sendable {
    public let content: AuthenticatedContent
    public let commit: Commit
    /// The committer's leaf in the new tree (for an external commit, the joiner's new leaf).
    public let committerLeaf: UInt32
    public let isExternal: Bool
    public let proposals: [ResolvedProposal]
    public let applied: AppliedProposals
    /// The tree after the proposals and the UpdatePath.
    public let tree: PublicRatchetTree
    /// Epoch + 1, new tree hash and extensions, the old confirmed transcript hash: the context path
    /// secrets are encrypted under (RFC 9420 §12.4.1).
    public let provisionalContext: GroupContext
    /// The next epoch's GroupContext, with the new confirmed transcript hash.
    public let context: GroupContext
    public let interimTranscriptHash: [UInt8]

    /// The public state of the next epoch.
    public var nextState: GroupState {
        GroupState(suite: tree.suite, context: context, tree: tree, interimTranscriptHash: interimTranscriptHash)
    }
}
