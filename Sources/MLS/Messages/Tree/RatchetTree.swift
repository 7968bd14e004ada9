/// RFC 9420 §12.4.3.3: the tree as `optional<Node> ratchet_tree<V>`, nodes in array order with nil
/// for blanks. Only the syntax is checked here; the tree's shape and contents are validated elsewhere.
public struct RatchetTree: MLSCodable, Hashable, Sendable {
    public var nodes: [Node?]

    public init(nodes: [Node?]) { self.nodes = nodes }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        nodes = try reader.readVector { (r: inout TLSReader) throws(DecodingError) in try r.readOptional(of: Node.self) }
    }

    /// Decodes a tree from untrusted bytes: no vector in it longer than `limits.maxNodes` entries,
    /// refused before they are kept (`TreeLimits.check` then applies the rest).
    public init(decoding bytes: [UInt8], limits: TreeLimits) throws(DecodingError) {
        self = try RatchetTree(decoding: bytes, limits: limits.decoding)
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeVector { w in
            for node in nodes { w.writeOptional(node) }
        }
    }
}
