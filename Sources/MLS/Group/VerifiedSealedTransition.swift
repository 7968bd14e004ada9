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
