/// What a member sends and becomes when it commits (RFC 9420 §12.4.1). The group moves on only
/// when the caller takes `group`, typically once the delivery service accepted `commit`.
public struct CommitOutput: Sendable {
    /// MLSMessage carrying the commit: a PublicMessage, or a PrivateMessage under a sealed wire format policy.
    public let commit: MLSMessage
    /// MLSMessage(Welcome) for the members added, if any.
    public let welcome: MLSMessage?
    /// The signed GroupInfo of the new epoch, with the ratchet_tree and external_pub extensions.
    public let groupInfo: GroupInfo
    /// The committer in the new epoch.
    public let group: Group
    public let summary: CommitSummary
}
