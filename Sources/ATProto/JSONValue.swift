/// Untyped JSON from a strict RFC 8259 parser, so each claim's type is checked where its rule
/// lives. Stricter than Foundation's decoder on purpose: no trailing commas, comments or other
/// extensions, duplicate object keys rejected (RFC 8259 §4 leaves them undefined, and two `iss`
/// members must not mean different things to different readers), and nesting bounded.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    static let maxDepth = 64

    enum ParseError: Error, Equatable {
        case unexpectedEnd
        case unexpectedByte(offset: Int)
        case duplicateKey(String)
        case tooDeep
        case invalidString
        case invalidNumber
        case trailingBytes
    }

    /// Parses a JSON object; nil for anything else (arrays, scalars, malformed text).
    static func parseObject(_ bytes: [UInt8]) -> [String: JSONValue]? {
        guard case .object(let object)? = try? parse(bytes) else { return nil }
        return object
    }

    static func parse(_ bytes: [UInt8]) throws(ParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw .trailingBytes }
        return value
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }
}

private struct JSONParser {
    typealias ParseError = JSONValue.ParseError

    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // RFC 8259 §2: ws = space, horizontal tab, line feed, carriage return.
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func peek() throws(ParseError) -> UInt8 {
        guard position < bytes.count else { throw .unexpectedEnd }
        return bytes[position]
    }

    private mutating func expect(_ literal: String) throws(ParseError) {
        for byte in literal.utf8 {
            guard try peek() == byte else { throw .unexpectedByte(offset: position) }
            position += 1
        }
    }

    mutating func value(depth: Int) throws(ParseError) -> JSONValue {
        guard depth < JSONValue.maxDepth else { throw .tooDeep }
        switch try peek() {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw .unexpectedByte(offset: position)
        }
    }

    private mutating func object(depth: Int) throws(ParseError) -> JSONValue {
        position += 1
        // Sized for a JWT's header and claims, so that building them never rehashes.
        var members = [String: JSONValue](minimumCapacity: 8)
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard try peek() == UInt8(ascii: "\"") else { throw .unexpectedByte(offset: position) }
            let key = try string()
            skipWhitespace()
            try expect(":")
            skipWhitespace()
            let member = try value(depth: depth + 1)
            guard members.updateValue(member, forKey: key) == nil else { throw .duplicateKey(key) }
            skipWhitespace()
            switch try peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return .object(members)
            default: throw .unexpectedByte(offset: position)
            }
        }
    }

    private mutating func array(depth: Int) throws(ParseError) -> JSONValue {
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            switch try peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(elements)
            default: throw .unexpectedByte(offset: position)
            }
        }
    }

    // RFC 8259 §7: escapes, no raw control characters, valid UTF-8, paired surrogates.
    private mutating func string() throws(ParseError) -> String {
        position += 1
        // Most strings are printable ASCII without escapes: found whole, they are valid as they stand.
        var end = position
        while end < bytes.count, bytes[end] >= 0x20, bytes[end] < 0x80, bytes[end] != UInt8(ascii: "\\") {
            if bytes[end] == UInt8(ascii: "\"") {
                let text = String(decoding: bytes[position..<end], as: UTF8.self)
                position = end + 1
                return text
            }
            end += 1
        }
        var out: [UInt8] = []
        while true {
            let byte = try peek()
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else { throw .invalidString }
                return text
            case UInt8(ascii: "\\"):
                let escape = try peek()
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        try expect("\\u")
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw .invalidString }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw .invalidString
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw .invalidString }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw .invalidString
                }
            case 0x00..<0x20:
                throw .invalidString
            default:
                out.append(byte)
            }
        }
    }

    private mutating func hex4() throws(ParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = try peek()
            position += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .invalidString
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    // RFC 8259 §6: -? int frac? exp?, no leading zeros, finite.
    private mutating func number() throws(ParseError) -> Double {
        let start = position
        func digits(_ parser: inout JSONParser) -> Int {
            let begin = parser.position
            while parser.position < parser.bytes.count,
                  parser.bytes[parser.position] >= UInt8(ascii: "0"), parser.bytes[parser.position] <= UInt8(ascii: "9") {
                parser.position += 1
            }
            return parser.position - begin
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits(&self)
        guard integerDigits > 0 else { throw .invalidNumber }
        if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") { throw .invalidNumber }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw .invalidNumber }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw .invalidNumber }
        }
        guard position - start <= 64,
              let value = Double(String(decoding: bytes[start..<position], as: UTF8.self)), value.isFinite
        else { throw .invalidNumber }
        return value
    }
}
