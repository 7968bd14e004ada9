/// A strict RFC 8259 parse of a whole document into a flat array of nodes (a "tape") that points
/// back into the input bytes, so decoding allocates nothing per value until a field is read.
/// Rejects what `JSONValue` rejects: any extension (comments, trailing commas, NaN), raw control
/// characters and invalid UTF-8 in strings, unpaired surrogate escapes, duplicate object keys, and
/// nesting deeper than `maxDepth`.
struct JSONTape: Sendable {
    enum Kind: UInt8, Sendable {
        case null, `true`, `false`, number, string, array, object
    }

    /// One value. Objects and arrays are followed by their members (an object's as key string,
    /// value, key string, value ...); `next` is the index just past the whole subtree.
    struct Node: Sendable {
        var kind: Kind
        /// Strings: the content contains a backslash escape. Numbers: no fraction or exponent.
        var flag: Bool
        /// Byte range of a number's text or a string's content (without quotes).
        var start: Int
        var end: Int
        var next: Int
        /// Members of an object or elements of an array.
        var count: Int
    }

    static let maxDepth = 64
    /// Objects with more members than this are checked for duplicate keys with a hash set.
    static let pairwiseKeyCheckLimit = 12

    let bytes: [UInt8]
    let nodes: [Node]

    init(parsing bytes: [UInt8]) throws(JSONParseError) {
        self.bytes = bytes
        nodes = try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in
            var parser = JSONTapeParser(buffer)
            try parser.parseDocument()
            return parser.nodes
        }
    }

    // MARK: Reading values

    /// The decoded text of the string node at `index` (already validated).
    func string(at index: Int) -> String {
        let node = nodes[index]
        return bytes.withUnsafeBufferPointer { Self.text(of: node, in: $0) }
    }

    /// Whether the string node at `index` equals `text`, without building a String when it has no escapes.
    func string(at index: Int, equals text: String) -> Bool {
        let node = nodes[index]
        if node.flag { return string(at: index) == text }
        let utf8 = text.utf8
        let count = node.end - node.start
        guard utf8.count == count else { return false }
        return bytes.withUnsafeBufferPointer { bytes in
            utf8.withContiguousStorageIfAvailable { text in
                for offset in 0..<count where bytes[node.start + offset] != text[offset] { return false }
                return true
            } ?? bytes[node.start..<node.end].elementsEqual(utf8)
        }
    }

    /// The tape index of the value of `object`'s member named `name`, if it has one. Objects in
    /// requests are small: a walk over the members comparing key bytes in place, no allocation.
    /// The walk starts at the key node `from` (one of `object`'s, or its end) and wraps around:
    /// types read their members in the order clients write them, so a reader that starts after the
    /// member it found last mostly finds the next one first.
    func member(_ name: String, of object: Int, from start: Int? = nil) -> Int? {
        let end = nodes[object].next
        let first = object + 1
        let start = start ?? first
        var member = start
        while member < end {
            if string(at: member, equals: name) { return member + 1 }
            member = nodes[member + 1].next
        }
        member = first
        while member < start {
            if string(at: member, equals: name) { return member + 1 }
            member = nodes[member + 1].next
        }
        return nil
    }

    /// The decoded text of a validated string node of the document `bytes`.
    static func text(of node: Node, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        let content = UnsafeBufferPointer(rebasing: bytes[node.start..<node.end])
        guard node.flag else { return String(decoding: content, as: UTF8.self) }
        return String(decoding: unescaped(content), as: UTF8.self)
    }

    /// Content bytes with escapes resolved; the parser has checked every escape.
    private static func unescaped(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var position = 0
        while position < bytes.count {
            let byte = bytes[position]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                position += 1
                continue
            }
            let escape = bytes[position + 1]
            position += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(bytes, at: position)
                position += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = hex4(bytes, at: position + 2)
                    position += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &out)
            default: out.append(escape)
            }
        }
        return out
    }

    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 { value = value << 4 | UInt32(hexValue(bytes[position + offset]) ?? 0) }
        return value
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            out.append(UInt8(scalar))
        case ..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6)); out.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12)); out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18)); out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F)); out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
