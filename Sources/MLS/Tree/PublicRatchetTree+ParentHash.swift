/// RFC 9420 §7.9: parent hashes, which chain each parent node to the leaf that last set it.
extension PublicRatchetTree {
    /// ParentHashInput { encryption_key; parent_hash; original_sibling_tree_hash }, hashed.
    static func parentHash(suite: CipherSuite, of parent: ParentNode, originalSiblingTreeHash: [UInt8]) -> [UInt8] {
        var writer = TLSWriter()
        writer.writeOpaque(parent.encryptionKey)
        writer.writeOpaque(parent.parentHash)
        writer.writeOpaque(originalSiblingTreeHash)
        return suite.hash(writer.bytes)
    }

    /// The parent hash that `p`'s descendant on the side away from `copathChild` must carry: the
    /// sibling's tree hash is taken with `p`'s unmerged leaves removed (RFC 9420 §7.9.2).
    public func parentHash(of p: UInt32, copathChild: UInt32) -> [UInt8]? {
        guard let parent = parentNode(at: p) else { return nil }
        let sibling = treeHash(of: copathChild, excluding: parent.unmergedLeaves[...])
        return Self.parentHash(suite: suite, of: parent, originalSiblingTreeHash: sibling)
    }

    /// The parent_hash a node carries: the field of a parent, the source field of a commit leaf.
    func storedParentHash(_ x: UInt32) -> [UInt8]? {
        switch node(at: x) {
        case .parent(let parent): parent.parentHash
        case .leaf(let leaf):
            if case .commit(let parentHash) = leaf.leafNodeSource { parentHash } else { nil }
        case nil: nil
        }
    }

    /// RFC 9420 §7.9.2: every non-blank parent P must be the end of exactly one parent-hash link: a
    /// child C of P whose resolution is D plus P's unmerged leaves under C, with D's parent_hash equal
    /// to P's parent hash over C's sibling.
    public func verifyParentHashes() throws(TreeError) {
        for x in stride(from: UInt32(1), to: nodeWidth, by: 2) {
            guard let parent = parentNode(at: x) else { continue }
            let left = TreeMath.left(x)!, right = TreeMath.right(x)!
            var links = 0
            for (child, sibling) in [(left, right), (right, left)] {
                guard let d = linkedDescendant(parent: parent, child: child) else { continue }
                if let stored = storedParentHash(d), stored == parentHash(of: x, copathChild: sibling) {
                    links += 1
                }
            }
            guard links == 1 else { throw .invalidParentHash(node: x) }
        }
    }

    /// The one node D of resolution(child) that is not an unmerged leaf of `parent`, when the rest of
    /// the resolution is exactly those unmerged leaves under `child`.
    func linkedDescendant(parent: ParentNode, child: UInt32) -> UInt32? {
        let range = TreeMath.leaves(under: child)
        let unmerged = Set(parent.unmergedLeaves.filter { range.contains($0) }.map { 2 * $0 })
        let resolved = Set(resolution(of: child))
        guard unmerged.isSubset(of: resolved) else { return nil }
        let rest = resolved.subtracting(unmerged)
        return rest.count == 1 ? rest.first : nil
    }
}
