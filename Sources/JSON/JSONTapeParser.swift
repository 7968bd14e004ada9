/// The parse behind `JSONTape`: RFC 8259 over the document's bytes, which stay pinned (an unsafe
/// buffer, no bounds or uniqueness checks per byte) while it runs. Every rule is `JSONTape`'s.
struct JSONTapeParser {
    typealias Kind = JSONTape.Kind
    typealias Node = JSONTape.Node

    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var nodes: [Node] = []
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONParseError) {
        // A node per 16 bytes, grown if needed: a base64 payload needs fewer, an object of short
        // members (ids, numbers, tags) about that many; growing the tape costs a copy of it.
        nodes.reserveCapacity(Swift.min(bytes.count / 16 + 8, 512))
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

    private mutating func literal(_ text: StaticString, _ kind: Kind) throws(JSONParseError) {
        let start = position
        for index in 0..<text.utf8CodeUnitCount {
            guard try peek() == text.utf8Start[index] else { throw JSONParseError(.unexpectedByte, at: position) }
            position += 1
        }
        append(kind, start: start, end: position)
    }

    private mutating func object(depth: Int) throws(JSONParseError) {
        guard depth <= JSONTape.maxDepth else { throw JSONParseError(.tooDeep, at: position) }
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
        guard depth <= JSONTape.maxDepth else { throw JSONParseError(.tooDeep, at: position) }
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
            position = JSONStringScan.firstSpecial(in: UnsafeRawBufferPointer(bytes), from: position, stopAtNonASCII: true)
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
            guard let digit = JSONTape.hexValue(bytes[position]) else { throw JSONParseError(.invalidString, at: position) }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
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
        if object.count > JSONTape.pairwiseKeyCheckLimit {
            var seen = Set<String>(minimumCapacity: object.count)
            var key = index + 1
            while key < object.next {
                guard seen.insert(JSONTape.text(of: nodes[key], in: bytes)).inserted else {
                    throw JSONParseError(.duplicateKey, at: nodes[key].start)
                }
                key = nodes[key + 1].next
            }
            return
        }
        var key = index + 1
        while key < object.next {
            var other = nodes[key + 1].next
            while other < object.next {
                if keysEqual(nodes[key], nodes[other]) { throw JSONParseError(.duplicateKey, at: nodes[other].start) }
                other = nodes[other + 1].next
            }
            key = nodes[key + 1].next
        }
    }

    /// Keys with escapes compare as the text they decode to (as Swift compares strings).
    private func keysEqual(_ first: Node, _ second: Node) -> Bool {
        if first.flag || second.flag { return JSONTape.text(of: first, in: bytes) == JSONTape.text(of: second, in: bytes) }
        let count = first.end - first.start
        guard count == second.end - second.start else { return false }
        for offset in 0..<count where bytes[first.start + offset] != bytes[second.start + offset] { return false }
        return true
    }
}
