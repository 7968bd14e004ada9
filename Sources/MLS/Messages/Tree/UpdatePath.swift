/// RFC 9420 §7.6: the committer's new leaf and path keys with encrypted path secrets.
public struct UpdatePath: MLSCodable, Hashable, Sendable {
    public var leafNode: LeafNode
    public var nodes: [UpdatePathNode]

    public init(leafNode: LeafNode, nodes: [UpdatePathNode]) {
        self.leafNode = leafNode
        self.nodes = nodes
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        leafNode = try LeafNode(from: &reader)
        nodes = try reader.readVector()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(leafNode)
        writer.writeVector(nodes)
    }
}
