/// RFC 9420 §7.8: a non-blank ratchet tree node. Indirect so that a tree of blanks, one byte each
/// on the wire, costs a pointer per entry in memory rather than a whole leaf.
public indirect enum Node: MLSCodable, Hashable, Sendable {
    case leaf(LeafNode)
    case parent(ParentNode)

    public var nodeType: NodeType {
        switch self {
        case .leaf: .leaf
        case .parent: .parent
        }
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        switch try NodeType(from: &reader) {
        case .leaf: self = .leaf(try LeafNode(from: &reader))
        case .parent: self = .parent(try ParentNode(from: &reader))
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(nodeType)
        switch self {
        case .leaf(let leaf): writer.write(leaf)
        case .parent(let parent): writer.write(parent)
        }
    }
}
