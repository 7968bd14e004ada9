/// RFC 9420 §7.8: tree hashes, kept per node and refreshed only along the paths of changed nodes.
extension PublicRatchetTree {
    /// TreeHashInput for a leaf: node_type, then LeafNodeHashInput { leaf_index; optional<LeafNode> }.
    static func leafHashInput(leaf: UInt32, node: LeafNode?) -> [UInt8] {
        var writer = TLSWriter()
        writer.write(NodeType.leaf)
        writer.write(leaf)
        writer.writeOptional(node)
        return writer.bytes
    }

    /// TreeHashInput for a parent: node_type, then ParentNodeHashInput
    /// { optional<ParentNode>; opaque left_hash<V>; opaque right_hash<V> }.
    static func parentHashInput(node: ParentNode?, left: [UInt8], right: [UInt8]) -> [UInt8] {
        var writer = TLSWriter()
        writer.write(NodeType.parent)
        writer.writeOptional(node)
        writer.writeOpaque(left)
        writer.writeOpaque(right)
        return writer.bytes
    }

    /// The hash of `x` from its own content and its children's stored hashes.
    func computeHash(_ x: UInt32) -> [UInt8] {
        if let leaf = TreeMath.leafIndex(node: x) {
            return suite.hash(Self.leafHashInput(leaf: leaf, node: leafNode(at: leaf)))
        }
        let left = TreeMath.left(x)!, right = TreeMath.right(x)!
        return suite.hash(Self.parentHashInput(
            node: parentNode(at: x), left: hashes[Int(left)], right: hashes[Int(right)]))
    }

    /// Recomputes every node's hash, level by level from the leaves up.
    mutating func rehashAll() {
        let width = UInt32(nodes.count)
        var level: UInt32 = 0
        while (UInt32(1) << level) - 1 < width {
            var x = (UInt32(1) << level) - 1
            while x < width {
                hashes[Int(x)] = computeHash(x)
                x += UInt32(1) << (level + 1)
            }
            level += 1
        }
    }

    /// Recomputes the hashes of `changed` nodes and all their ancestors, children before parents.
    mutating func rehash(changed: some Sequence<UInt32>) {
        var marked = Set<UInt32>()
        for node in changed {
            var x = node
            guard marked.insert(x).inserted else { continue }
            while let p = TreeMath.parent(x, leafCount: leafCount), marked.insert(p).inserted { x = p }
        }
        for x in marked.sorted(by: { TreeMath.level($0) < TreeMath.level($1) }) {
            hashes[Int(x)] = computeHash(x)
        }
    }

    /// The tree hash of `x` in the tree where the leaves in `excluded` (sorted in increasing order,
    /// as unmerged_leaves are) are blank and missing from every unmerged_leaves list: the "original"
    /// tree hash of RFC 9420 §7.9.2. Subtrees without an excluded leaf reuse their stored hash; the
    /// excluded leaves under a node are found by binary search, so the cost is O(e · depth · log e)
    /// for e excluded leaves rather than a scan of the list at every node.
    func treeHash(of x: UInt32, excluding excluded: ArraySlice<UInt32>) -> [UInt8] {
        let range = TreeMath.leaves(under: x)
        let inside = excluded[excluded.sortedInsertionIndex(of: range.lowerBound)..<excluded.sortedInsertionIndex(of: range.upperBound)]
        if inside.isEmpty { return hashes[Int(x)] }
        if let leaf = TreeMath.leafIndex(node: x) {
            return suite.hash(Self.leafHashInput(leaf: leaf, node: nil))
        }
        var parent = parentNode(at: x)
        parent?.unmergedLeaves.removeAll { inside.sortedContains($0) }
        let left = treeHash(of: TreeMath.left(x)!, excluding: inside)
        let right = treeHash(of: TreeMath.right(x)!, excluding: inside)
        return suite.hash(Self.parentHashInput(node: parent, left: left, right: right))
    }
}
