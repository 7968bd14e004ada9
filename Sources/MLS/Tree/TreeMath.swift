/// Array-representation tree math (RFC 9420 Appendix C). Leaves sit at even node indices, parents at
/// odd ones, and a tree of `leafCount` leaves (a power of two, RFC 9420 §7.8) has 2·leafCount − 1
/// nodes. Out-of-range input yields nil, never a trap.
public enum TreeMath {
    /// The largest leaf count whose node width still fits a UInt32.
    public static let maxLeafCount: UInt32 = 1 << 31

    /// RFC 9420 trees always hold a power-of-two number of leaves.
    public static func isValidLeafCount(_ leafCount: UInt32) -> Bool {
        leafCount > 0 && leafCount <= maxLeafCount && leafCount & (leafCount - 1) == 0
    }

    /// node_width(n) = 2(n−1)+1, and 0 for n = 0.
    public static func nodeWidth(leafCount: UInt32) -> UInt32? {
        guard leafCount <= maxLeafCount else { return nil }
        return leafCount == 0 ? 0 : 2 * (leafCount - 1) + 1
    }

    /// The number of trailing one bits: 0 for leaves.
    public static func level(_ x: UInt32) -> UInt32 { UInt32((~x).trailingZeroBitCount) }

    public static func isLeaf(_ x: UInt32) -> Bool { x & 1 == 0 }

    public static func nodeIndex(leaf: UInt32) -> UInt32? {
        leaf < maxLeafCount ? 2 * leaf : nil
    }

    /// The leaf index of a leaf node, nil for a parent node.
    public static func leafIndex(node: UInt32) -> UInt32? { isLeaf(node) ? node / 2 : nil }

    public static func root(leafCount: UInt32) -> UInt32? {
        guard isValidLeafCount(leafCount), let width = nodeWidth(leafCount: leafCount) else { return nil }
        return (1 << log2(width)) - 1
    }

    /// Floor of log2, with log2(0) = 0 as in the RFC.
    static func log2(_ x: UInt32) -> UInt32 { x == 0 ? 0 : UInt32(31 - x.leadingZeroBitCount) }

    public static func left(_ x: UInt32) -> UInt32? {
        let k = level(x)
        guard k > 0, k < 32 else { return nil }
        return x ^ (1 << (k - 1))
    }

    public static func right(_ x: UInt32) -> UInt32? {
        let k = level(x)
        guard k > 0, k < 31 else { return nil }
        return x ^ (3 << (k - 1))
    }

    /// True when `x` is a node of a valid tree of `leafCount` leaves.
    public static func contains(_ x: UInt32, leafCount: UInt32) -> Bool {
        guard isValidLeafCount(leafCount), let width = nodeWidth(leafCount: leafCount) else { return false }
        return x < width
    }

    public static func parent(_ x: UInt32, leafCount: UInt32) -> UInt32? {
        guard contains(x, leafCount: leafCount), x != root(leafCount: leafCount) else { return nil }
        let k = level(x)
        let b = (x >> (k + 1)) & 1
        return (x | (1 << k)) ^ (b << (k + 1))
    }

    public static func sibling(_ x: UInt32, leafCount: UInt32) -> UInt32? {
        guard let p = parent(x, leafCount: leafCount) else { return nil }
        return x < p ? right(p) : left(p)
    }

    /// The parents from `x` up to and including the root; empty for the root.
    public static func directPath(_ x: UInt32, leafCount: UInt32) -> [UInt32]? {
        guard contains(x, leafCount: leafCount) else { return nil }
        var path: [UInt32] = []
        var node = x
        while let p = parent(node, leafCount: leafCount) {
            path.append(p)
            node = p
        }
        return path
    }

    /// The siblings of `x` and of each node on its direct path below the root.
    public static func copath(_ x: UInt32, leafCount: UInt32) -> [UInt32]? {
        guard let path = directPath(x, leafCount: leafCount) else { return nil }
        return ([x] + path.dropLast()).compactMap { sibling($0, leafCount: leafCount) }
    }

    /// The lowest node that has both `x` and `y` in its subtree (each node is its own ancestor).
    public static func commonAncestor(_ x: UInt32, _ y: UInt32) -> UInt32 {
        let lx = level(x) + 1
        let ly = level(y) + 1
        if lx <= ly, UInt64(x) >> ly == UInt64(y) >> ly { return y }
        if ly <= lx, UInt64(x) >> lx == UInt64(y) >> lx { return x }
        var (xn, yn, k) = (UInt64(x), UInt64(y), UInt64(0))
        while xn != yn {
            xn >>= 1
            yn >>= 1
            k += 1
        }
        return UInt32(truncatingIfNeeded: (xn << k) + (1 << (k - 1)) - 1)
    }

    /// True when `ancestor`'s subtree contains `node`.
    public static func isAncestor(_ ancestor: UInt32, of node: UInt32) -> Bool {
        commonAncestor(ancestor, node) == ancestor
    }

    /// The leaves under node `x`, as a half-open range of leaf indices.
    public static func leaves(under x: UInt32) -> Range<UInt32> {
        let k = level(x)
        let first = (UInt64(x) >> (UInt64(k) + 1)) << UInt64(k)
        return UInt32(first)..<UInt32(first + (1 << UInt64(k)))
    }
}
