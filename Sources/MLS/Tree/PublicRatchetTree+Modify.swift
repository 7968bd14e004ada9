/// RFC 9420 §7.7 and §12.1: adding, updating and removing leaves, blanking and truncation.
extension PublicRatchetTree {
    /// RFC 9420 §12.1.1: the new leaf goes to the leftmost blank leaf, or to a new leaf after the
    /// tree is extended to the right; it becomes unmerged at every non-blank parent above it.
    /// Returns the leaf index.
    @discardableResult
    public mutating func add(_ leafNode: LeafNode) -> UInt32 {
        let leaf = addWithoutRehash(leafNode)
        rehash(changed: [2 * leaf])
        return leaf
    }

    /// `add` leaving the hashes above the new leaf stale, so a commit adding many members rehashes
    /// each ancestor once (`rehash(changed:)` with every new leaf) instead of once per member.
    mutating func addWithoutRehash(_ leafNode: LeafNode) -> UInt32 {
        let next = nextAddIndex
        let leaf = next < leafCount ? next : extend()
        blankLeafHint = leaf + 1
        nodes[Int(2 * leaf)] = .leaf(leafNode)
        for p in directPath(ofLeaf: leaf) {
            guard case .parent(var parent) = nodes[Int(p)] else { continue }
            // Blank the slot first so the unmerged_leaves buffer is uniquely held and grows in place.
            nodes[Int(p)] = nil
            // RFC 9420 §7.1: kept in increasing order (adds fill the leftmost blank, so this appends).
            parent.unmergedLeaves.insert(leaf, at: parent.unmergedLeaves.sortedInsertionIndex(of: leaf))
            nodes[Int(p)] = .parent(parent)
        }
        return leaf
    }

    /// The leaf index the next `add` will use: the leftmost blank leaf, else the first leaf past the
    /// tree (which `add` creates by extending it). Lets a caller validate a new leaf at its position.
    public var nextAddIndex: UInt32 {
        var leaf = blankLeafHint
        while leaf < leafCount, nodes[Int(2 * leaf)] != nil { leaf += 1 }
        return leaf
    }

    /// RFC 9420 §7.7: doubles the leaf count; the old tree becomes the new root's left subtree and the
    /// right subtree is blank. Returns the first new leaf index.
    mutating func extend() -> UInt32 {
        let firstNew = leafCount
        let oldWidth = nodes.count
        leafCount *= 2
        nodes.append(contentsOf: repeatElement(nil, count: oldWidth + 1))
        hashes.append(contentsOf: repeatElement([], count: oldWidth + 1))
        let added = (UInt32(oldWidth)..<UInt32(nodes.count)).sorted { TreeMath.level($0) < TreeMath.level($1) }
        for x in added { hashes[Int(x)] = computeHash(x) }
        return firstNew
    }

    /// RFC 9420 §12.1.2: the sender's leaf is replaced and its direct path blanked.
    public mutating func update(leaf: UInt32, with leafNode: LeafNode) throws(TreeError) {
        try checkLeaf(leaf)
        guard self.leafNode(at: leaf) != nil else { throw .blankLeaf(leaf) }
        nodes[Int(2 * leaf)] = .leaf(leafNode)
        blankDirectPathWithoutRehash(ofLeaf: leaf)
        rehash(changed: [2 * leaf])
    }

    /// RFC 9420 §12.1.3: the leaf and its direct path are blanked, then the tree is truncated.
    public mutating func remove(leaf: UInt32) throws(TreeError) {
        try checkLeaf(leaf)
        guard leafNode(at: leaf) != nil else { throw .blankLeaf(leaf) }
        nodes[Int(2 * leaf)] = nil
        blankLeafHint = min(blankLeafHint, leaf)
        blankDirectPathWithoutRehash(ofLeaf: leaf)
        truncate()
        if leaf < leafCount { rehash(changed: [2 * leaf]) } else { rehash(changed: [root]) }
    }

    /// Applies an Add, Update or Remove as RFC 9420 §12.1 describes; `sender` is the proposer's leaf
    /// (the leaf an Update replaces). Returns the new leaf of an Add. Other proposals leave the tree
    /// unchanged.
    @discardableResult
    public mutating func apply(_ proposal: Proposal, sender: UInt32) throws(TreeError) -> UInt32? {
        switch proposal {
        case .add(let keyPackage): return add(keyPackage.leafNode)
        case .update(let leafNode): try update(leaf: sender, with: leafNode)
        case .remove(let removed): try remove(leaf: removed)
        default: break
        }
        return nil
    }

    /// Blanks every parent on the direct path of `leaf` (RFC 9420 §7.5, §12.1.2).
    public mutating func blankDirectPath(ofLeaf leaf: UInt32) throws(TreeError) {
        try checkLeaf(leaf)
        blankDirectPathWithoutRehash(ofLeaf: leaf)
        rehash(changed: [2 * leaf])
    }

    mutating func blankDirectPathWithoutRehash(ofLeaf leaf: UInt32) {
        for p in directPath(ofLeaf: leaf) { nodes[Int(p)] = nil }
    }

    /// RFC 9420 §7.7: while the root's right subtree is entirely blank, the root and that subtree are
    /// dropped and the left subtree becomes the tree. Stored hashes of what remains stay valid.
    public mutating func truncate() {
        while leafCount > 1 {
            let half = Int(leafCount)
            guard nodes[half...].allSatisfy({ $0 == nil }) else { return }
            leafCount /= 2
            blankLeafHint = min(blankLeafHint, leafCount)
            nodes.removeLast(nodes.count - (half - 1))
            hashes.removeLast(hashes.count - (half - 1))
        }
    }
}
