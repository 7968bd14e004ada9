/// A member as the tree shows it: leaf index, credential and keys.
public struct GroupMember: Sendable, Hashable {
    public let leafIndex: UInt32
    public let credential: Credential
    public let signatureKey: [UInt8]
    public let encryptionKey: [UInt8]

    init(leafIndex: UInt32, leafNode: LeafNode) {
        self.leafIndex = leafIndex
        credential = leafNode.credential
        signatureKey = leafNode.signatureKey
        encryptionKey = leafNode.encryptionKey
    }
}

extension PublicRatchetTree {
    /// Every member, left to right.
    public var groupMembers: [GroupMember] {
        var result: [GroupMember] = []
        result.reserveCapacity(Int(leafCount))
        for x in stride(from: UInt32(0), to: nodeWidth, by: 2) {
            if case .leaf(let leaf) = node(at: x) { result.append(GroupMember(leafIndex: x / 2, leafNode: leaf)) }
        }
        return result
    }
}

/// What an applied commit changed, for the service's bookkeeping (memberships, consumed KeyPackages).
public struct CommitSummary: Sendable, Hashable {
    /// The epoch the commit created.
    public let epoch: UInt64
    /// The committer's leaf in the new epoch (for an external commit, the joiner's leaf).
    public let committerLeaf: UInt32
    public let isExternal: Bool
    public let added: [AddedMember]
    public let removed: [RemovedMember]
    public let updated: [UInt32]
    public let psks: [PreSharedKeyID]
    public let reInit: ReInit?

    init(_ staged: StagedCommit) {
        self.init(epoch: staged.context.epoch, committerLeaf: staged.committerLeaf, isExternal: staged.isExternal,
                  added: staged.applied.added, removed: staged.applied.removed, updated: staged.applied.updated,
                  psks: staged.applied.psks, reInit: staged.applied.reInit)
    }

    init(epoch: UInt64, committerLeaf: UInt32, isExternal: Bool, added: [AddedMember], removed: [RemovedMember],
         updated: [UInt32], psks: [PreSharedKeyID], reInit: ReInit?) {
        self.epoch = epoch
        self.committerLeaf = committerLeaf
        self.isExternal = isExternal
        self.added = added
        self.removed = removed
        self.updated = updated
        self.psks = psks
        self.reInit = reInit
    }
}
