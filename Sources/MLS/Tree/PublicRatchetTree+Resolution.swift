/// RFC 9420 §4.1.1 and §4.1.2: resolutions and filtered direct paths.
extension PublicRatchetTree {
    /// The resolution of `x`: itself and its unmerged leaves when non-blank, nothing for a blank
    /// leaf, else the resolutions of its children, left first. Node indices, in tree order.
    public func resolution(of x: UInt32) -> [UInt32] {
        var result: [UInt32] = []
        appendResolution(of: x, to: &result)
        return result
    }

    func appendResolution(of x: UInt32, to result: inout [UInt32]) {
        switch node(at: x) {
        case .leaf:
            result.append(x)
        case .parent(let parent):
            result.append(x)
            result.append(contentsOf: parent.unmergedLeaves.map { 2 * $0 })
        case nil:
            guard let left = TreeMath.left(x), let right = TreeMath.right(x) else { return }
            appendResolution(of: left, to: &result)
            appendResolution(of: right, to: &result)
        }
    }

    /// True when every node under `x` is blank, so its resolution is empty; stops at the first
    /// non-blank node.
    public func isSubtreeBlank(_ x: UInt32) -> Bool {
        if node(at: x) != nil { return false }
        guard let left = TreeMath.left(x), let right = TreeMath.right(x) else { return true }
        return isSubtreeBlank(left) && isSubtreeBlank(right)
    }

    /// The direct path of `leaf` without the nodes whose copath child has an empty resolution, each
    /// with that copath child: (node on the path, its child that is not an ancestor of the leaf).
    public func filteredDirectPath(ofLeaf leaf: UInt32) -> [(node: UInt32, copathChild: UInt32)] {
        var result: [(node: UInt32, copathChild: UInt32)] = []
        var child = 2 * leaf
        while let p = TreeMath.parent(child, leafCount: leafCount) {
            let sibling = TreeMath.sibling(child, leafCount: leafCount)!
            if !isSubtreeBlank(sibling) { result.append((p, sibling)) }
            child = p
        }
        return result
    }
}
