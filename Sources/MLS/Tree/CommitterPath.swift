/// What a committer keeps after generating a fresh path (RFC 9420 §7.4–7.5): the new leaf, one path
/// secret per filtered-direct-path node, the commit secret and its new private tree state.
public struct CommitterPath: Sendable {
    /// One node of the filtered direct path with its copath child and path secret.
    public struct PathNode: Sendable, Equatable {
        public let node: UInt32
        public let copathChild: UInt32
        public let pathSecret: [UInt8]
        public let encryptionKey: [UInt8]
    }

    public let sender: UInt32
    public let leafNode: LeafNode
    /// Bottom-up, as in UpdatePath.nodes.
    public let path: [PathNode]
    /// DeriveSecret(last path secret, "path") (RFC 9420 §7.4).
    public let commitSecret: [UInt8]
    public let privateState: TreePrivateState

    /// RFC 9420 §12.4.3.1: the path secret a new member at `leaf` gets in its Welcome, the one of the
    /// lowest path node above it; nil if no path node covers it.
    public func pathSecret(forJoiner leaf: UInt32) -> (node: UInt32, pathSecret: [UInt8])? {
        guard let entry = path.first(where: { TreeMath.leaves(under: $0.node).contains(leaf) }) else { return nil }
        return (entry.node, entry.pathSecret)
    }
}

/// What a member learns from another member's UpdatePath (RFC 9420 §7.5).
public struct ReceivedPath: Sendable, Equatable {
    /// The lowest node of the sender's filtered direct path above the recipient.
    public let node: UInt32
    /// The path secret decrypted for that node.
    public let pathSecret: [UInt8]
    public let commitSecret: [UInt8]
}
