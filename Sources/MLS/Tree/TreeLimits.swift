/// How large a ratchet tree a party builds from input it does not trust (RFC 9420 §7.8). On the wire
/// a blank node costs one byte, but an imported tree is padded to full width with a hash per node: a
/// tree whose last occupied leaf lies far to the right is refused before that, from its node count
/// alone (trailing blanks are never sent, §12.4.3.3, so the count is 2·(last occupied leaf) + 1), and
/// so is one with more occupied leaves than allowed. The delivery service's choice of the two and
/// why honest groups never reach them: docs/validation.md, "Bounds on input".
public struct TreeLimits: Sendable, Hashable {
    /// The last occupied leaf's index must lie below this.
    public var maxLeaves: UInt32
    /// Occupied (non-blank) leaves at most.
    public var maxMembers: Int

    public init(maxLeaves: UInt32, maxMembers: Int = .max) {
        self.maxLeaves = min(max(maxLeaves, 1), TreeMath.maxLeafCount)
        self.maxMembers = maxMembers
    }

    public static let unlimited = TreeLimits(maxLeaves: TreeMath.maxLeafCount)

    /// The most nodes a wire tree within these limits has: 2·maxLeaves − 1.
    public var maxNodes: Int { 2 * Int(maxLeaves) - 1 }

    /// For decoding a wire tree: no vector in it (the nodes, an unmerged_leaves list, a capability
    /// list) may hold more than `maxNodes` entries, checked before they are kept.
    public var decoding: DecodingLimits { DecodingLimits(maxVectorElements: maxNodes) }

    /// Refuses a wire tree wider than `maxLeaves` or with more than `maxMembers` occupied leaves, in
    /// one pass over the decoded node list and before anything is allocated for it.
    public func check(_ tree: RatchetTree) throws(TreeError) {
        let count = tree.nodes.count
        guard count <= maxNodes else { throw .treeTooWide(lastLeaf: UInt32(clamping: (count - 1) / 2), maxLeaves: maxLeaves) }
        guard maxMembers < count else { return }
        var members = 0
        for index in stride(from: 0, to: count, by: 2) where tree.nodes[index] != nil {
            members += 1
            if members > maxMembers { throw .tooManyMembers(maxMembers: maxMembers) }
        }
    }
}
