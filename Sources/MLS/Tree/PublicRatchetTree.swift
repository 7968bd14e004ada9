/// The ratchet tree as group state (RFC 9420 §7): the public nodes of a left-balanced tree of
/// `leafCount` leaves (always a power of two, §7.8) in array order, with the tree hash of every
/// node kept current as the tree changes, so that only the direct paths of changed nodes are rehashed.
///
/// It holds no secrets, so the delivery service can follow a group with it alone; a member pairs it
/// with a `TreePrivateState`. Indices are plain `UInt32`: "leaf" arguments are leaf indices and
/// "node" arguments are array (node) indices, as in `TreeMath`.
public struct PublicRatchetTree: Sendable, Equatable {
    public let suite: CipherSuite
    public internal(set) var leafCount: UInt32
    /// Full width (2·leafCount − 1); nil is a blank node.
    public internal(set) var nodes: [Node?]
    /// The tree hash of every node (RFC 9420 §7.8), indexed like `nodes`.
    var hashes: [[UInt8]]
    /// No leaf below this index is blank, so the search for the leftmost blank leaf starts here.
    var blankLeafHint: UInt32 = 0

    /// A one-leaf tree holding the group creator (RFC 9420 §11).
    public init(suite: CipherSuite, creator: LeafNode) {
        self.suite = suite
        leafCount = 1
        nodes = [.leaf(creator)]
        hashes = [[]]
        hashes[0] = computeHash(0)
    }

    /// Imports a wire tree (RFC 9420 §12.4.3.3), padding it with blanks to full width. Only the shape
    /// and `limits` are checked here, before anything is allocated; `validate` checks contents.
    public init(suite: CipherSuite, tree: RatchetTree, limits: TreeLimits = .unlimited) throws(TreeError) {
        let count = tree.nodes.count
        guard count > 0 else { throw .malformedTree("empty tree") }
        guard count % 2 == 1 else { throw .malformedTree("even node count \(count)") }
        guard tree.nodes[count - 1] != nil else { throw .malformedTree("trailing blank node") }
        try limits.check(tree)
        var leaves: UInt32 = 1
        while TreeMath.nodeWidth(leafCount: leaves)! < UInt32(count) { leaves <<= 1 }
        for (index, node) in tree.nodes.enumerated() {
            guard let node else { continue }
            let wantsLeaf = TreeMath.isLeaf(UInt32(index))
            if case .leaf = node, !wantsLeaf { throw .malformedTree("leaf node at parent index \(index)") }
            if case .parent = node, wantsLeaf { throw .malformedTree("parent node at leaf index \(index)") }
        }
        self.suite = suite
        leafCount = leaves
        nodes = tree.nodes
        let width = Int(TreeMath.nodeWidth(leafCount: leaves)!)
        nodes.append(contentsOf: repeatElement(nil, count: width - count))
        hashes = Array(repeating: [], count: width)
        rehashAll()
    }

    /// The wire form: every node in array order with trailing blanks dropped (RFC 9420 §12.4.3.3).
    public var ratchetTree: RatchetTree {
        var end = nodes.count
        while end > 0, nodes[end - 1] == nil { end -= 1 }
        return RatchetTree(nodes: Array(nodes[..<end]))
    }

    public var nodeWidth: UInt32 { UInt32(nodes.count) }
    public var root: UInt32 { TreeMath.root(leafCount: leafCount)! }

    public func node(at nodeIndex: UInt32) -> Node? {
        nodeIndex < nodeWidth ? nodes[Int(nodeIndex)] : nil
    }

    public func isBlank(_ nodeIndex: UInt32) -> Bool { node(at: nodeIndex) == nil }

    /// The leaf at `leaf`, or nil when blank or outside the tree.
    public func leafNode(at leaf: UInt32) -> LeafNode? {
        guard leaf < leafCount, case .leaf(let leafNode) = nodes[Int(2 * leaf)] else { return nil }
        return leafNode
    }

    public func parentNode(at nodeIndex: UInt32) -> ParentNode? {
        guard case .parent(let parent) = node(at: nodeIndex) else { return nil }
        return parent
    }

    /// The HPKE public key of a non-blank node.
    public func encryptionKey(at nodeIndex: UInt32) -> [UInt8]? {
        switch node(at: nodeIndex) {
        case .leaf(let leaf): leaf.encryptionKey
        case .parent(let parent): parent.encryptionKey
        case nil: nil
        }
    }

    /// Every non-blank leaf with its leaf index, left to right.
    public var members: [(leaf: UInt32, node: LeafNode)] {
        var result: [(leaf: UInt32, node: LeafNode)] = []
        for leaf in 0..<leafCount {
            if let node = leafNode(at: leaf) { result.append((leaf, node)) }
        }
        return result
    }

    public var memberCount: Int { members.count }

    /// The leaf whose signature key is `signatureKey`, if any.
    public func leafIndex(signatureKey: [UInt8]) -> UInt32? {
        (0..<leafCount).first { leafNode(at: $0)?.signatureKey == signatureKey }
    }

    /// The tree hash of the whole tree, as carried in GroupContext.tree_hash (RFC 9420 §7.8).
    public var treeHash: [UInt8] { hashes[Int(root)] }

    /// The tree hash of the subtree rooted at `nodeIndex`.
    public func treeHash(of nodeIndex: UInt32) -> [UInt8] { hashes[Int(nodeIndex)] }

    public static func == (a: PublicRatchetTree, b: PublicRatchetTree) -> Bool {
        a.suite == b.suite && a.leafCount == b.leafCount && a.nodes == b.nodes
    }

    func checkLeaf(_ leaf: UInt32) throws(TreeError) {
        guard leaf < leafCount else { throw .leafIndexOutOfRange(leaf) }
    }

    func directPath(ofLeaf leaf: UInt32) -> [UInt32] {
        TreeMath.directPath(2 * leaf, leafCount: leafCount) ?? []
    }
}
