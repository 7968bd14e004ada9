/// The change from one epoch's tree to the next, found without the commit: each leaf is classified
/// (unchanged, blanked, newly filled from a KeyPackage, the committer's own), then the next tree
/// is rebuilt from the current one with the operations every member applies, in the RFC 9420 §12.3
/// order (Removes §12.1.3, Adds §12.1.1 into the leftmost blank leaves, then the committer's path
/// merged as §7.5 does, with the parent hashes computed top-down, §7.9). The rebuilt tree must equal
/// the new one node for node: any other parent change, an unmerged_leaves entry not made by an Add,
/// a path node's parent hash not chaining to the committer's leaf, is refused there.
struct SealedTreeTransition {
    let committer: VerifiedSealedTransition.Committer
    let committerLeafNode: LeafNode
    let committerPathUpdated: Bool
    let removed: [RemovedMember]
    let added: [VerifiedSealedTransition.AddedLeaf]

    /// `committer` is the GroupInfo signer's leaf: a member's (present in `old` with the same
    /// credential, checked by the caller) or an external joiner's new leaf.
    init(from old: PublicRatchetTree, to new: PublicRatchetTree,
         committer: VerifiedSealedTransition.Committer) throws(SealedCommitError) {
        let c = committer.leaf
        guard let newLeaf = new.leafNode(at: c) else { throw .signerNotAMember(leaf: c) }
        var removed: [RemovedMember] = []
        var added: [VerifiedSealedTransition.AddedLeaf] = []
        var pathUpdated = false

        for i in 0..<max(old.leafCount, new.leafCount) {
            let before = old.leafNode(at: i), after = new.leafNode(at: i)
            if i == c {
                switch committer {
                case .member:
                    guard let before else { throw .signerNotAMember(leaf: c) }
                    guard after != before else { continue }
                    try Self.checkCommitterLeaf(newLeaf, replacing: before)
                    pathUpdated = true
                case .externalJoiner:
                    // §12.4.3.2: the joiner's leaf comes with its path; it may take the place of its own
                    // old leaf, removed by the same commit (a resync).
                    guard case .commit = newLeaf.leafNodeSource else { throw .invalidExternalJoin("the joiner's leaf is not from a commit") }
                    if let before { removed.append(RemovedMember(leafIndex: i, leafNode: before)) }
                    pathUpdated = true
                }
                continue
            }
            guard before != after else { continue }
            if let before { removed.append(RemovedMember(leafIndex: i, leafNode: before)) }
            if let after {
                guard case .keyPackage = after.leafNodeSource else {
                    throw before == nil ? .unexpectedLeaf(leaf: i) : .leafChanged(leaf: i)
                }
                added.append(VerifiedSealedTransition.AddedLeaf(leafIndex: i, leafNode: after))
            }
        }
        if case .externalJoiner = committer {
            // §12.4.3.2: ExternalInit, at most one Remove (of the joiner's own old leaf) and PSKs.
            guard added.isEmpty else { throw .invalidExternalJoin("an external commit adds no one") }
            guard removed.count <= 1 else { throw .invalidExternalJoin("an external commit removes at most one leaf") }
            if let old = removed.first, old.leafNode.credential != newLeaf.credential {
                throw .invalidExternalJoin("an external commit removes only the joiner's own old leaf")
            }
        }
        // §12.4: Remove requires a path.
        if !removed.isEmpty, !pathUpdated { throw .pathRequired }

        try Self.rebuild(old, removed: removed, added: added, committer: committer, newLeaf: newLeaf,
                         pathUpdated: pathUpdated, matches: new)
        self.committer = committer
        committerLeafNode = newLeaf
        committerPathUpdated = pathUpdated
        self.removed = removed
        self.added = added
    }

    /// §12.4.2: the committer's leaf from an UpdatePath keeps its credential (the same member),
    /// has source commit, and an encryption key other than the one it replaces.
    static func checkCommitterLeaf(_ leaf: LeafNode, replacing old: LeafNode) throws(SealedCommitError) {
        guard leaf.credential == old.credential else { throw .committerLeaf("its credential changed") }
        guard case .commit = leaf.leafNodeSource else { throw .committerLeaf("its new leaf node is not from a commit") }
        guard leaf.encryptionKey != old.encryptionKey else { throw .committerLeaf("its encryption key did not change") }
    }

    /// Rebuilds the next tree from `old` and requires it to equal `new` node for node.
    static func rebuild(
        _ old: PublicRatchetTree, removed: [RemovedMember], added: [VerifiedSealedTransition.AddedLeaf],
        committer: VerifiedSealedTransition.Committer, newLeaf: LeafNode, pathUpdated: Bool, matches new: PublicRatchetTree
    ) throws(SealedCommitError) {
        var tree = old
        let c = committer.leaf
        var filtered: [(node: UInt32, copathChild: UInt32)] = []
        do {
            for entry in removed { try tree.remove(leaf: entry.leafIndex) }
        } catch {
            throw .invalidTree(error)
        }
        for entry in added {
            guard tree.add(entry.leafNode) == entry.leafIndex else { throw .addedLeafMisplaced(leaf: entry.leafIndex) }
        }
        if case .externalJoiner = committer {
            guard tree.add(newLeaf) == c else { throw .invalidExternalJoin("the joiner's leaf is not the leftmost blank leaf") }
        }
        if pathUpdated {
            filtered = tree.filteredDirectPath(ofLeaf: c)
            var keys: [[UInt8]] = []
            keys.reserveCapacity(filtered.count)
            for entry in filtered {
                guard let node = new.parentNode(at: entry.node), node.unmergedLeaves.isEmpty else {
                    throw .committerPath(node: entry.node)
                }
                keys.append(node.encryptionKey)
            }
            let parentHash = tree.setPath(sender: c, keys: keys)
            guard case .commit(parentHash) = newLeaf.leafNodeSource else { throw .invalidParentHash(node: 2 * c) }
            tree.nodes[Int(2 * c)] = .leaf(newLeaf)
            tree.rehash(changed: [2 * c])
        }
        guard tree != new else { return }
        let onPath = Set(filtered.map(\.node))
        for x in 0..<max(tree.nodeWidth, new.nodeWidth) where tree.node(at: x) != new.node(at: x) {
            if let leaf = TreeMath.leafIndex(node: x) { throw .leafChanged(leaf: leaf) }
            throw onPath.contains(x) ? .invalidParentHash(node: x) : .parentChangedOffPath(node: x)
        }
        throw .parentChangedOffPath(node: new.root)
    }
}
