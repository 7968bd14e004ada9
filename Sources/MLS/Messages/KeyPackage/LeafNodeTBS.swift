/// RFC 9420 §7.2: what a leaf node's signature covers. Leaves made by update or commit are bound
/// to the group and position they were made for.
public struct LeafNodeTBS: MLSEncodable, Hashable, Sendable {
    public var leafNode: LeafNode
    public var groupID: [UInt8]?
    public var leafIndex: UInt32?

    public init(leafNode: LeafNode, groupID: [UInt8]?, leafIndex: UInt32?) {
        self.leafNode = leafNode
        self.groupID = groupID
        self.leafIndex = leafIndex
    }

    /// Whether this source needs `groupID` and `leafIndex`.
    public var needsGroupBinding: Bool {
        if case .keyPackage = leafNode.leafNodeSource { return false }
        return true
    }

    public func encode(to writer: inout TLSWriter) {
        leafNode.encodeSignedFields(to: &writer)
        guard needsGroupBinding else { return }
        // A missing binding is a caller bug, not hostile input: the TBS would silently be wrong.
        guard let groupID, let leafIndex else {
            preconditionFailure("LeafNodeTBS for an update or commit leaf needs groupID and leafIndex")
        }
        writer.writeOpaque(groupID)
        writer.write(leafIndex)
    }
}
