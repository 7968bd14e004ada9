import MLS

/// The bounds on MLS input that follow from `maxMembers` (docs/validation.md, "Bounds on input").
extension ServiceLimits {
    /// The last occupied leaf of a tree lies below 2 · maxMembers. Adds and external joins take the
    /// leftmost blank leaf (RFC 9420 §12.1.1, §12.4.3.2) and a removal truncates the tree (§7.7), so
    /// when a leaf is filled every leaf left of it is occupied: a group whose commits all kept it at
    /// most maxMembers strong never has a leaf at or past maxMembers, however many joined and left.
    /// The factor 2 is slack for a tree shaped elsewhere (a creator's own history before createConvo)
    /// or under a cap lowered since.
    var maxTreeLeaves: UInt32 { UInt32(clamping: 2 * maxMembers) }

    /// A tree a client sends (createConvo, a GroupInfo's ratchet_tree): within `maxTreeLeaves` and
    /// with at most `maxMembers` occupied leaves, refused from the wire before it is built.
    var treeLimits: TreeLimits { TreeLimits(maxLeaves: maxTreeLeaves, maxMembers: maxMembers) }

    /// A stored public state: the width only, so that a cap lowered since cannot lock a larger group
    /// out of the commits that would shrink it.
    var storedTreeLimits: TreeLimits { TreeLimits(maxLeaves: maxTreeLeaves) }

    /// Why a tree beyond `treeLimits` was refused (its node list, or a list inside it, too long).
    var treeBoundDescription: String {
        "the ratchet tree is wider than this service takes (its last leaf must lie below \(maxTreeLeaves), twice the member "
            + "cap) or holds a longer list than such a tree has (\(treeLimits.maxNodes) entries)"
    }

    /// Every MLS object a client sends: no vector longer than the node list of a tree within
    /// `maxTreeLeaves` (2 · maxTreeLeaves − 1, about 4 · maxMembers), which is the longest list an
    /// honest commit (Adds and Removes are at most maxMembers each), GroupInfo or tree holds.
    var decodingLimits: DecodingLimits { treeLimits.decoding }
}
