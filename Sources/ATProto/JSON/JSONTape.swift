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
    private(set) var nodes: [Node] = []
    private var position = 0

    init(parsing bytes: [UInt8]) throws(JSONParseError) {
        self.bytes = bytes
        // A rough upper bound for typical documents: one node per ~8 bytes.
        nodes.reserveCapacity(Swift.min(bytes.count / 8 + 4, 1 << 16))
        skipWhitespace()
        try value(depth: 0)
        skipWhitespace()
        guard position == bytes.count else { throw JSONParseError(.trailingBytes, at: position) }
    }

    // MARK: Values

    // RFC 8259 §2: ws = space, horizontal tab, line feed, carriage return.
    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func peek() throws(JSONParseError) -> UInt8 {
        guard position < bytes.count else { throw JSONParseError(.unexpectedEnd, at: position) }
        return bytes[position]
    }

    private mutating func append(_ kind: Kind, flag: Bool = false, start: Int, end: Int) {
        nodes.append(Node(kind: kind, flag: flag, start: start, end: end, next: nodes.count + 1, count: 0))
    }

    private mutating func value(depth: Int) throws(JSONParseError) {
        switch try peek() {
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "{"): try object(depth: depth + 1)
        case UInt8(ascii: "["): try array(depth: depth + 1)
        case UInt8(ascii: "t"): try literal("true", .true)
        case UInt8(ascii: "f"): try literal("false", .false)
        case UInt8(ascii: "n"): try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw JSONParseError(.unexpectedByte, at: position)
        }
    }

    private mutating func literal(_ text: String, _ kind: Kind) throws(JSONParseError) {
        let start = position
        for byte in text.utf8 {
            guard try peek() == byte else { throw JSONParseError(.unexpectedByte, at: position) }
            position += 1
        }
        append(kind, start: start, end: position)
    }

    private mutating func object(depth: Int) throws(JSONParseError) {
        guard depth <= Self.maxDepth else { throw JSONParseError(.tooDeep, at: position) }
        let index = nodes.count
        append(.object, start: position, end: position)
        position += 1
        skipWhitespace()
        var count = 0
        if try peek() == UInt8(ascii: "}") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                guard try peek() == UInt8(ascii: "\"") else { throw JSONParseError(.unexpectedByte, at: position) }
                try string()
                skipWhitespace()
                guard try peek() == UInt8(ascii: ":") else { throw JSONParseError(.unexpectedByte, at: position) }
                position += 1
                skipWhitespace()
                try value(depth: depth)
                count += 1
                skipWhitespace()
                let byte = try peek()
                position += 1
                if byte == UInt8(ascii: "}") { break }
                guard byte == UInt8(ascii: ",") else { throw JSONParseError(.unexpectedByte, at: position - 1) }
            }
        }
        nodes[index].end = position
        nodes[index].next = nodes.count
        nodes[index].count = count
        try checkDuplicateKeys(object: index)
    }

    private mutating func array(depth: Int) throws(JSONParseError) {
        guard depth <= Self.maxDepth else { throw JSONParseError(.tooDeep, at: position) }
        let index = nodes.count
        append(.array, start: position, end: position)
        position += 1
        skipWhitespace()
        var count = 0
        if try peek() == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                try value(depth: depth)
                count += 1
                skipWhitespace()
                let byte = try peek()
                position += 1
                if byte == UInt8(ascii: "]") { break }
                guard byte == UInt8(ascii: ",") else { throw JSONParseError(.unexpectedByte, at: position - 1) }
            }
        }
        nodes[index].end = position
        nodes[index].next = nodes.count
        nodes[index].count = count
    }

    // RFC 8259 §6: -? int frac? exp?, no leading zeros.
    private mutating func number() throws(JSONParseError) {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0 else { throw JSONParseError(.invalidNumber, at: start) }
        if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") { throw JSONParseError(.invalidNumber, at: start) }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            isInteger = false
            guard digits() > 0 else { throw JSONParseError(.invalidNumber, at: start) }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            isInteger = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw JSONParseError(.invalidNumber, at: start) }
        }
        append(.number, flag: isInteger, start: start, end: position)
    }

    private mutating func digits() -> Int {
        let begin = position
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
        return position - begin
    }

    // MARK: Strings

    // RFC 8259 §7 and §8.1: escapes, no raw control characters, UTF-8 only, paired surrogates.
    private mutating func string() throws(JSONParseError) {
        position += 1
        let start = position
        var escaped = false
        while true {
            // Plain ASCII runs are the bulk of every string: scanned eight bytes at a time.
            let from = position
            position = bytes.withUnsafeBytes { JSONStringScan.firstSpecial(in: $0, from: from, stopAtNonASCII: true) }
            guard position < bytes.count else { throw JSONParseError(.unexpectedEnd, at: position) }
            switch bytes[position] {
            case UInt8(ascii: "\""):
                append(.string, flag: escaped, start: start, end: position)
                position += 1
                return
            case UInt8(ascii: "\\"):
                escaped = true
                try escape()
            case 0x80...:
                try multiByteScalar()
            default:
                throw JSONParseError(.invalidString, at: position)
            }
        }
    }

    private mutating func escape() throws(JSONParseError) {
        let at = position
        position += 1
        switch try peek() {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 1
        case UInt8(ascii: "u"):
            position += 1
            let unit = try hex4()
            if (0xD800...0xDBFF).contains(unit) {
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                else { throw JSONParseError(.invalidString, at: at) }
                position += 2
                guard (0xDC00...0xDFFF).contains(try hex4()) else { throw JSONParseError(.invalidString, at: at) }
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw JSONParseError(.invalidString, at: at)
            }
        default:
            throw JSONParseError(.invalidString, at: at)
        }
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw JSONParseError(.unexpectedEnd, at: bytes.count) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexValue(bytes[position]) else { throw JSONParseError(.invalidString, at: position) }
            value = value << 4 | UInt32(digit)
            position += 1
        }
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

    /// One well-formed UTF-8 sequence of 2–4 bytes (Unicode §3.9, Table 3-7): no overlong forms,
    /// no surrogates, nothing above U+10FFFF.
    private mutating func multiByteScalar() throws(JSONParseError) {
        let lead = bytes[position]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw JSONParseError(.invalidUTF8, at: position)
        }
        guard bytes.count - position >= length else { throw JSONParseError(.invalidUTF8, at: position) }
        let second = bytes[position + 1]
        guard second >= low, second <= high else { throw JSONParseError(.invalidUTF8, at: position) }
        for offset in 2..<length where bytes[position + offset] & 0xC0 != 0x80 {
            throw JSONParseError(.invalidUTF8, at: position)
        }
        position += length
    }

    // MARK: Duplicate keys

    /// RFC 8259 §4 leaves duplicate names undefined; two readers must never see different values.
    private func checkDuplicateKeys(object index: Int) throws(JSONParseError) {
        let object = nodes[index]
        guard object.count > 1 else { return }
        if object.count > Self.pairwiseKeyCheckLimit {
            var seen = Set<String>(minimumCapacity: object.count)
            var key = index + 1
            while key < object.next {
                guard seen.insert(string(at: key)).inserted else { throw JSONParseError(.duplicateKey, at: nodes[key].start) }
                key = nodes[key + 1].next
            }
            return
        }
        var key = index + 1
        while key < object.next {
            var other = nodes[key + 1].next
            while other < object.next {
                if keysEqual(key, other) { throw JSONParseError(.duplicateKey, at: nodes[other].start) }
                other = nodes[other + 1].next
            }
            key = nodes[key + 1].next
        }
    }

    private func keysEqual(_ a: Int, _ b: Int) -> Bool {
        let first = nodes[a], second = nodes[b]
        if first.flag || second.flag { return string(at: a) == string(at: b) }
        guard first.end - first.start == second.end - second.start else { return false }
        return bytes[first.start..<first.end].elementsEqual(bytes[second.start..<second.end])
    }

    // MARK: Reading values

    /// The decoded text of the string node at `index` (already validated).
    func string(at index: Int) -> String {
        let node = nodes[index]
        guard node.flag else { return String(decoding: bytes[node.start..<node.end], as: UTF8.self) }
        return String(decoding: unescaped(node.start..<node.end), as: UTF8.self)
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

    /// Content bytes with escapes resolved; the parser has checked every escape.
    private func unescaped(_ range: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var position = range.lowerBound
        while position < range.upperBound {
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
                var scalar = hex4(at: position)
                position += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = hex4(at: position + 2)
                    position += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &out)
            default: out.append(escape)
            }
        }
        return out
    }

    private func hex4(at position: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 { value = value << 4 | UInt32(Self.hexValue(bytes[position + offset]) ?? 0) }
        return value
    }

    private func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
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
