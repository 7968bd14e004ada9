/// Why `SealedCommitVerifier` refused a sealed commit or proposal on its public data. Each case
/// names the rule; docs/sealed-commits.md lists them with their RFC 9420 sections.
public enum SealedCommitError: Error, Sendable, Equatable {
    /// The PrivateMessage (or the GroupInfo) names another group (§6.3, §12.4.3.1).
    case wrongGroupID
    /// The PrivateMessage is not from the group's current epoch (§6.3).
    case wrongEpoch(expected: UInt64, actual: UInt64)
    /// The PrivateMessage carries application data, or a proposal where a commit is expected.
    case unexpectedContentType(ContentType)
    /// A member's PublicMessage commit: it can and must be validated in full
    /// (`PublicGroup.validateAndApply`), not through its GroupInfo.
    case notSealed
    /// The GroupInfo's GroupContext does not fit the group: protocol version or cipher suite (§12.4.3.1).
    case groupInfoMismatch(String)
    /// The GroupInfo's epoch is not the current epoch + 1 (§8.1: a commit moves the epoch by one).
    case epochNotNext(expected: UInt64, actual: UInt64)
    /// The GroupInfo's tree does not hash to its GroupContext's tree_hash (§7.8, §12.4.3.1).
    case treeHashMismatch
    /// The GroupInfo's signer is not a leaf of the new tree that a member of the same credential
    /// held in the current tree (for a sealed commit), or not the external joiner's new leaf.
    case signerNotAMember(leaf: UInt32)
    /// The GroupInfo's signature does not verify with the signer's leaf key (§12.4.3.1).
    case invalidGroupInfoSignature
    /// The new tree fails the §12.4.3.1 checks (leaf signatures §7.3, parent hashes §7.9.2, keys,
    /// unmerged leaves) or is malformed.
    case invalidTree(TreeError)
    /// The GroupInfo or its extensions are malformed (§12.4.3, §13).
    case invalidGroupInfo(GroupError)
    /// A member's leaf other than the committer's was replaced by a leaf node that no KeyPackage
    /// can have produced (source update or commit): only the member itself can make that change,
    /// by an Update proposal the service cannot see in a sealed commit (§12.1.2).
    case leafChanged(leaf: UInt32)
    /// A leaf appears at a blank position with a source other than key_package: only an Add fills
    /// a blank leaf (§12.1.1), and an external joiner's leaf is the GroupInfo's signer (§12.4.3.2).
    case unexpectedLeaf(leaf: UInt32)
    /// The committer's leaf is not the committer's (other credential), or its new leaf node is not
    /// a commit-sourced one with a fresh encryption key (§7.3, §12.4.2).
    case committerLeaf(String)
    /// The new leaves are not at the leftmost blank leaves after the removals (§7.7, §12.1.1, §12.3).
    case addedLeafMisplaced(leaf: UInt32)
    /// A node on the committer's filtered direct path whose parent_hash (or whose leaf's
    /// parent_hash, at the leaf's node index) is not the one the path yields (§7.9.2).
    case invalidParentHash(node: UInt32)
    /// A node on the committer's filtered direct path that is blank or has unmerged leaves: an
    /// UpdatePath sets each of them with none (§7.5).
    case committerPath(node: UInt32)
    /// A parent node that differs from what the removals, the additions' unmerged_leaves and the
    /// committer's path make of the current tree (§7.5, §12.1.1, §12.1.3).
    case parentChangedOffPath(node: UInt32)
    /// Removals or new GroupContext extensions without the committer's path (§12.4).
    case pathRequired
    /// An external commit breaking §12.4.3.2 (added members, another member removed, a changed
    /// context, a GroupInfo not signed by the joiner).
    case invalidExternalJoin(String)
    /// An added leaf whose key_package lifetime does not cover the time given (§7.3).
    case addedLeafExpired(leaf: UInt32)
    /// New GroupContext extensions some member does not support, or a malformed known one (§12.1.7, §11.1).
    case unsupportedExtensions(String)
    /// A PublicMessage external commit that full validation refused (§12.4.2, §12.4.3.2).
    case invalidCommit(GroupError)
    /// The KeyPackage given for an added leaf is not the one whose leaf node it is (an Add puts the
    /// KeyPackage's leaf node into the tree unchanged, §12.1.1), or one is given for no added leaf.
    case keyPackageMismatch(leaf: UInt32)
}
