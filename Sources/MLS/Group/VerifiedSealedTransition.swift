/// An epoch change that `SealedCommitVerifier` checked on public data: the GroupInfo of the new
/// epoch, its tree in full, and the tree's difference from the current one, leaf by leaf. Only the
/// verifier builds it. What it does not prove (the commit's encrypted content matches the
/// GroupInfo, the transcript hash chain, the confirmation tag) is in docs/sealed-commits.md.
public struct VerifiedSealedTransition: Sendable {
    /// Who made the commit, as the GroupInfo's signer shows it.
    public enum Committer: Sendable, Hashable {
        /// A member at this leaf in both epochs, with the same credential (a sealed commit).
        case member(leaf: UInt32)
        /// A new leaf of an external commit (always a PublicMessage, RFC 9420 §12.4.3.2).
        case externalJoiner(leaf: UInt32)

        public var leaf: UInt32 {
            switch self {
            case .member(let leaf), .externalJoiner(let leaf): leaf
            }
        }
    }

    /// A leaf newly filled with a key_package-sourced leaf node (an Add, RFC 9420 §12.1.1). An Add
    /// places the KeyPackage's leaf node in the tree unchanged, so it is the leaf node of exactly
    /// the KeyPackages whose `leafNode` equals it: `matches` is how a service finds the published
    /// KeyPackage (and its KeyPackageRef) an added leaf came from, and refuses a leaf that matches
    /// none (a fabricated member: keys made up under someone else's identity).
    public struct AddedLeaf: Sendable, Hashable {
        public let leafIndex: UInt32
        public let leafNode: LeafNode

        /// The leaf node's encoding, as it is inside the KeyPackage it came from.
        public var leafNodeBytes: [UInt8] { leafNode.encoded() }
        public var credential: Credential { leafNode.credential }
        public var signatureKey: [UInt8] { leafNode.signatureKey }

        /// True when `keyPackage` is the KeyPackage this leaf node is the leaf of.
        public func matches(_ keyPackage: KeyPackage) -> Bool { keyPackage.leafNode == leafNode }
    }

    public let committer: Committer
    /// The committer's leaf node in the new tree.
    public let committerLeafNode: LeafNode
    /// True when the committer's leaf and filtered direct path are new (the commit had an UpdatePath).
    public let committerPathUpdated: Bool
    /// Leaves blanked (removals, RFC 9420 §12.1.3), with the leaf nodes they held, by index.
    public let removed: [RemovedMember]
    /// Leaves newly filled from KeyPackages, by index.
    public let added: [AddedLeaf]
    /// The new GroupContext extensions when they differ from the current ones (§12.1.7), else nil.
    public let changedExtensions: [Extension]?
    /// The verified GroupInfo of the new epoch.
    public let groupInfo: GroupInfo
    /// The public state of the new epoch, built from the GroupInfo: its GroupContext, its tree and
    /// the interim transcript hash its confirmation tag gives (RFC 9420 §8.2).
    public let next: PublicGroup
    /// True when the commit itself was validated in full (an external commit's PublicMessage);
    /// false for a sealed commit, whose content is taken on the GroupInfo's word.
    public let contentVerified: Bool

    public var epoch: UInt64 { next.epoch }
}

extension VerifiedSealedTransition {
    /// The transition as a `CommitSummary`, the shape the service's bookkeeping takes for any commit:
    /// `keyPackages` gives, by leaf index, the KeyPackage each added leaf came from (the service
    /// finds it among the published ones), and each must be the one whose leaf node the leaf is
    /// (`AddedLeaf.matches`), else `keyPackageMismatch`. An external commit's summary is the one
    /// full validation made. A sealed commit shows no Update (another member's leaf may not change),
    /// and hides its PSK and ReInit proposals: `updated` and `psks` are empty, `reInit` nil
    /// (docs/sealed-commits.md, "What cannot be checked in sealed mode").
    public func commitSummary(keyPackages: [UInt32: KeyPackage]) throws(SealedCommitError) -> CommitSummary {
        if contentVerified, let summary = next.lastCommit { return summary }
        var members: [AddedMember] = []
        members.reserveCapacity(added.count)
        for leaf in added {
            guard let keyPackage = keyPackages[leaf.leafIndex], leaf.matches(keyPackage) else {
                throw .keyPackageMismatch(leaf: leaf.leafIndex)
            }
            members.append(AddedMember(leafIndex: leaf.leafIndex, keyPackage: keyPackage,
                                       keyPackageRef: keyPackage.reference(suite: next.cipherSuite)))
        }
        guard keyPackages.count == added.count else { throw .keyPackageMismatch(leaf: committer.leaf) }
        var isExternal = false
        if case .externalJoiner = committer { isExternal = true }
        return CommitSummary(epoch: epoch, committerLeaf: committer.leaf, isExternal: isExternal,
                             added: members, removed: removed, updated: [], psks: [], reInit: nil)
    }
}
