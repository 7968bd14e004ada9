/// What a member learned from a message it processed.
public enum ProcessedMessage: Sendable {
    /// Application data from the member at `sender`.
    case application(data: [UInt8], sender: UInt32, authenticatedData: [UInt8])
    /// A standalone proposal, now cached for this epoch.
    case proposal(CachedProposal)
    /// A commit that moved the group to a new epoch (or removed this member: see `Group.isActive`).
    case commit(CommitSummary)
}
