/// A member the commit added, with the KeyPackageRef its Welcome entry is addressed to.
public struct AddedMember: Sendable, Hashable {
    public let leafIndex: UInt32
    public let keyPackage: KeyPackage
    public let keyPackageRef: [UInt8]
}

/// A member the commit removed, with the leaf it had.
public struct RemovedMember: Sendable, Hashable {
    public let leafIndex: UInt32
    public let leafNode: LeafNode
}

/// The result of applying a commit's proposals in the RFC 9420 §12.3 order.
public struct AppliedProposals: Sendable {
    public var tree: PublicRatchetTree
    /// The GroupContext extensions of the next epoch.
    public var extensions: [Extension]
    public var added: [AddedMember] = []
    public var removed: [RemovedMember] = []
    /// Leaves replaced by Update proposals.
    public var updated: [UInt32] = []
    /// PSKs in the order the commit lists them (RFC 9420 §8.4).
    public var psks: [PreSharedKeyID] = []
    public var externalInit: [UInt8]?
    public var reInit: ReInit?
    /// Some covered proposal type requires an UpdatePath (RFC 9420 §12.4).
    public var pathRequired = false
}
