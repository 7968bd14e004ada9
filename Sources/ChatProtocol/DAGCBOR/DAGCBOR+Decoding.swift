extension DAGCBOR {
    /// Nesting deeper than this is refused: the contract's deepest value (an entry's signed
    /// commit body) nests about ten levels.
    public static let maxDepth = 32

    /// Exactly one canonical item filling `bytes`; anything after it is refused.
    public static func decode(_ bytes: [UInt8]) throws(DAGCBORError) -> DAGCBORValue {
        var reader = Reader(bytes: bytes)
        let value = try reader.item(depth: 0)
        guard reader.position == bytes.count else { throw DAGCBORError("bytes after the item", at: reader.position) }
        return value
    }

    /// Canonical items one after another filling `bytes` (a subscription frame is two maps).
    public static func decodeSequence(_ bytes: [UInt8], maxItems: Int) throws(DAGCBORError) -> [DAGCBORValue] {
        var reader = Reader(bytes: bytes)
        var items: [DAGCBORValue] = []
        while reader.position < bytes.count {
            guard items.count < maxItems else { throw DAGCBORError("more than \(maxItems) items", at: reader.position) }
            items.append(try reader.item(depth: 0))
        }
        return items
    }

    /// A strict reader: every length is checked against the bytes left before anything is
    /// allocated, every argument must be in its shortest form, map keys must be text in canonical
    /// order with no repeat, and text must be valid UTF-8.
    struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func item(depth: Int) throws(DAGCBORError) -> DAGCBORValue {
            guard depth <= DAGCBOR.maxDepth else { throw DAGCBORError("nesting deeper than \(DAGCBOR.maxDepth)", at: position) }
            let start = position
            let (major, argument) = try head()
            switch major {
            case .unsigned:
                return .unsigned(argument)
            case .negative:
                throw DAGCBORError("negative integers are outside the contract", at: start)
            case .bytes:
                return .bytes(try take(argument, at: start))
            case .text:
                return .text(try text(argument, at: start))
            case .array:
                // Each item takes at least one byte.
                guard argument <= UInt64(bytes.count - position) else { throw DAGCBORError("array longer than the input", at: start) }
                var items: [DAGCBORValue] = []
                items.reserveCapacity(Int(argument))
                for _ in 0..<argument { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case .map:
                // Each entry takes at least two bytes.
                guard argument <= UInt64(bytes.count - position) / 2 else { throw DAGCBORError("map longer than the input", at: start) }
                var entries: [String: DAGCBORValue] = [:]
                entries.reserveCapacity(Int(argument))
                var previous: String?
                for _ in 0..<argument {
                    let keyStart = position
                    let (keyMajor, keyLength) = try head()
                    guard keyMajor == .text else { throw DAGCBORError("map key is not text", at: keyStart) }
                    let key = try text(keyLength, at: keyStart)
                    if let previous, !DAGCBOR.keyPrecedes(previous, key) {
                        throw DAGCBORError(previous == key ? "repeated map key" : "map keys out of canonical order", at: keyStart)
                    }
                    previous = key
                    entries[key] = try item(depth: depth + 1)
                }
                return .map(entries)
            case .tag:
                throw DAGCBORError("tags are outside the contract", at: start)
            case .simple:
                switch argument {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: throw DAGCBORError("null is outside the contract", at: start)
                default: throw DAGCBORError("floats and simple values are outside the contract", at: start)
                }
            }
        }

        /// The major type and its argument, in shortest form (RFC 8949 §4.2.1).
        mutating func head() throws(DAGCBORError) -> (Major, UInt64) {
            let start = position
            guard position < bytes.count else { throw DAGCBORError("unexpected end", at: position) }
            let initial = bytes[position]
            position += 1
            let major = Major(rawValue: initial >> 5)!
            let info = initial & 0x1F
            if major == .simple {
                // Floats (25-27) and the one-byte simple form (24) are refused by the caller.
                guard info < 24 else { throw DAGCBORError("floats and simple values are outside the contract", at: start) }
                return (major, UInt64(info))
            }
            let size: Int
            switch info {
            case ..<24: return (major, UInt64(info))
            case 24: size = 1
            case 25: size = 2
            case 26: size = 4
            case 27: size = 8
            case 31: throw DAGCBORError("indefinite lengths are not canonical", at: start)
            default: throw DAGCBORError("reserved additional information", at: start)
            }
            guard bytes.count - position >= size else { throw DAGCBORError("unexpected end", at: position) }
            var argument: UInt64 = 0
            for offset in 0..<size { argument = argument << 8 | UInt64(bytes[position + offset]) }
            position += size
            let minimum: UInt64 = switch size {
            case 1: 24
            case 2: 0x100
            case 4: 0x1_0000
            default: 0x1_0000_0000
            }
            guard argument >= minimum else { throw DAGCBORError("integer or length not in its shortest form", at: start) }
            return (major, argument)
        }

        mutating func take(_ count: UInt64, at start: Int) throws(DAGCBORError) -> [UInt8] {
            guard count <= UInt64(bytes.count - position) else { throw DAGCBORError("string longer than the input", at: start) }
            let end = position + Int(count)
            defer { position = end }
            return Array(bytes[position..<end])
        }

        mutating func text(_ count: UInt64, at start: Int) throws(DAGCBORError) -> String {
            let raw = try take(count, at: start)
            guard let text = String(validating: raw, as: UTF8.self) else { throw DAGCBORError("text is not valid UTF-8", at: start) }
            return text
        }
    }
}
