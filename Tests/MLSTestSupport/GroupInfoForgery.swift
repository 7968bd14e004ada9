import MLS

/// Changes to a GroupInfo a dishonest committer could make and sign: a different tree (its hash put
/// into the GroupContext) or context, signed again by `signingKey` as leaf `signer`.
public struct GroupInfoForgery {
    public var groupInfo: GroupInfo
    public let suite: CipherSuite

    public init(_ groupInfo: GroupInfo, suite: CipherSuite) {
        self.groupInfo = groupInfo
        self.suite = suite
    }

    public var tree: RatchetTree {
        get throws {
            guard let ext = groupInfo.extensions.first(ofType: .ratchetTree) else { throw GroupError.unexpectedMessage("no ratchet_tree extension") }
            return try ext.decodeRatchetTree()
        }
    }

    /// Replaces the tree and the GroupContext's tree_hash with the new tree's.
    public mutating func setTree(_ tree: RatchetTree) throws {
        groupInfo.extensions = groupInfo.extensions.filter { $0.extensionType != .ratchetTree } + [.ratchetTree(tree)]
        groupInfo.groupContext.treeHash = try PublicRatchetTree(suite: suite, tree: tree).treeHash
    }

    /// Edits node `index` of the tree (keeping the hash consistent).
    public mutating func editNode(_ index: Int, _ edit: (inout Node?) throws -> Void) throws {
        var wire = try tree
        while wire.nodes.count <= index { wire.nodes.append(nil) }
        try edit(&wire.nodes[index])
        try setTree(wire)
    }

    /// Edits the parent node at node index `index`, which must be one.
    public mutating func editParent(_ index: Int, _ edit: (inout ParentNode) -> Void) throws {
        try editNode(index) { node in
            guard case .parent(var parent) = node else { throw GroupError.unexpectedMessage("no parent node at \(index)") }
            edit(&parent)
            node = .parent(parent)
        }
    }

    /// Edits the leaf node at node index `index`, which must be one.
    public mutating func editLeaf(_ index: Int, _ edit: (inout LeafNode) throws -> Void) throws {
        try editNode(index) { node in
            guard case .leaf(var leaf) = node else { throw GroupError.unexpectedMessage("no leaf node at \(index)") }
            try edit(&leaf)
            node = .leaf(leaf)
        }
    }

    public func signed(by key: SignaturePrivateKey, as signer: UInt32? = nil) throws -> GroupInfo {
        var info = groupInfo
        if let signer { info.signer = signer }
        try info.sign(with: key, suite: suite)
        return info
    }
}

extension LeafNode {
    /// Signs the leaf for its place in a group (RFC 9420 §7.2: update and commit leaves bind both).
    public mutating func resign(with key: SignaturePrivateKey, suite: CipherSuite, groupID: [UInt8], leaf: UInt32) throws {
        signature = try suite.signWithLabel(key, label: "LeafNodeTBS", content: tbs(groupID: groupID, leafIndex: leaf).encoded())
    }
}
