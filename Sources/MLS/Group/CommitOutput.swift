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
    /// What the committer framed the commit with, for `resealed`.
    let sealing: CommitSealing
}

/// What an external joiner sends and becomes (RFC 9420 §12.4.3.2).
public struct ExternalCommitOutput: Sendable {
    /// The joiner as a member of the new epoch.
    public let group: Group
    /// MLSMessage(PublicMessage) carrying the external commit.
    public let commit: MLSMessage
    let sealing: CommitSealing
}
