/// A strictly parsed JSON document (RFC 8259, the rules of `JSONTape`: no duplicate keys, UTF-8
/// only, depth at most 64) that a caller walks node by node. For readers that interpret JSON
/// against a schema of their own (the chat contract's projection) rather than through Codable.
public struct JSONDocument: Sendable {
    public enum Kind: Sendable, Equatable {
        case null, bool, number, string, array, object
    }

    /// A node of the document: an index into its flat layout.
    public struct Node: Sendable, Equatable {
        fileprivate let index: Int
    }

    private let tape: JSONTape

    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        tape = try JSONTape(parsing: bytes)
    }

    public var root: Node { Node(index: 0) }

    public func kind(_ node: Node) -> Kind {
        switch tape.nodes[node.index].kind {
        case .null: .null
        case .true, .false: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    public func bool(_ node: Node) -> Bool? {
        switch tape.nodes[node.index].kind {
        case .true: true
        case .false: false
        default: nil
        }
    }

    /// The decoded text of a string node.
    public func string(_ node: Node) -> String? {
        guard tape.nodes[node.index].kind == .string else { return nil }
        return tape.string(at: node.index)
    }

    /// A number node's text exactly as written, and whether it has neither fraction nor exponent.
    public func numberText(_ node: Node) -> (text: String, isInteger: Bool)? {
        let raw = tape.nodes[node.index]
        guard raw.kind == .number else { return nil }
        return (String(decoding: tape.bytes[raw.start..<raw.end], as: UTF8.self), raw.flag)
    }

    /// Members (objects) or elements (arrays).
    public func count(_ node: Node) -> Int { tape.nodes[node.index].count }

    /// An object's members in document order.
    public func members(_ node: Node) -> [(key: String, value: Node)] {
        guard tape.nodes[node.index].kind == .object else { return [] }
        var out: [(String, Node)] = []
        out.reserveCapacity(tape.nodes[node.index].count)
        let end = tape.nodes[node.index].next
        var member = node.index + 1
        while member < end {
            out.append((tape.string(at: member), Node(index: member + 1)))
            member = tape.nodes[member + 1].next
        }
        return out
    }

    /// The value of an object's member named `name`.
    public func member(_ name: String, of node: Node) -> Node? {
        guard tape.nodes[node.index].kind == .object else { return nil }
        return tape.member(name, of: node.index).map { Node(index: $0) }
    }

    /// An array's elements in order.
    public func elements(_ node: Node) -> [Node] {
        guard tape.nodes[node.index].kind == .array else { return [] }
        var out: [Node] = []
        out.reserveCapacity(tape.nodes[node.index].count)
        let end = tape.nodes[node.index].next
        var element = node.index + 1
        while element < end {
            out.append(Node(index: element))
            element = tape.nodes[element].next
        }
        return out
    }
}

/// JSON string literals for writers outside this module that build their own documents.
public enum JSONString {
    /// `text` as a JSON string (RFC 8259 §7, escaped as every encoder here escapes), appended to `out`.
    public static func append(_ text: String, to out: inout [UInt8]) {
        let output = JSONOutput(capacity: text.utf8.count + 2)
        JSONWriter.appendString(text, to: output)
        out.append(contentsOf: UnsafeBufferPointer(start: output.base, count: output.count))
    }
}
