/// The CBOR (RFC 8949) the Relay protocol uses: a definite-length array of byte strings (its
/// KeyPackage bundles, `[* bstr]`) or of text strings (our `relay/u/{did}` client lists). Nothing else
/// is read: any other item, an indefinite length, a non-minimal length or trailing bytes is refused,
/// and counts and lengths are bounded before anything is allocated.
public enum CBORArray {
    public enum DecodingError: Error, Equatable, CustomStringConvertible {
        case malformed(String)

        public var description: String {
            switch self {
            case .malformed(let what): "not a CBOR array of strings: \(what)"
            }
        }
    }

    /// RFC 8949 §3.1 major types.
    private static let byteString: UInt8 = 2
    private static let textString: UInt8 = 3
    private static let array: UInt8 = 4

    public static func encode(byteStrings items: [[UInt8]]) -> [UInt8] {
        var out = head(major: array, count: UInt64(items.count))
        for item in items {
            out += head(major: byteString, count: UInt64(item.count))
            out += item
        }
        return out
    }

    public static func encode(textStrings items: [String]) -> [UInt8] {
        var out = head(major: array, count: UInt64(items.count))
        for item in items {
            let bytes = Array(item.utf8)
            out += head(major: textString, count: UInt64(bytes.count))
            out += bytes
        }
        return out
    }

    /// `[* bstr]` with at most `maxCount` items of at most `maxItemBytes` each.
    public static func decodeByteStrings(_ bytes: [UInt8], maxCount: Int, maxItemBytes: Int) throws(DecodingError) -> [[UInt8]] {
        try decode(bytes, major: byteString, maxCount: maxCount, maxItemBytes: maxItemBytes)
    }

    /// `[* tstr]`, each valid UTF-8.
    public static func decodeTextStrings(_ bytes: [UInt8], maxCount: Int, maxItemBytes: Int) throws(DecodingError) -> [String] {
        var strings: [String] = []
        for item in try decode(bytes, major: textString, maxCount: maxCount, maxItemBytes: maxItemBytes) {
            guard let text = String(validating: item, as: UTF8.self) else { throw .malformed("a text string is not UTF-8") }
            strings.append(text)
        }
        return strings
    }

    private static func decode(_ bytes: [UInt8], major: UInt8, maxCount: Int, maxItemBytes: Int) throws(DecodingError) -> [[UInt8]] {
        var index = 0
        let count = try readHead(bytes, &index, expecting: array, what: "array")
        guard count <= UInt64(maxCount) else { throw .malformed("more than \(maxCount) items") }
        var items: [[UInt8]] = []
        items.reserveCapacity(Int(count))
        for _ in 0..<count {
            let length = try readHead(bytes, &index, expecting: major, what: major == byteString ? "byte string" : "text string")
            guard length <= UInt64(maxItemBytes) else { throw .malformed("an item is longer than \(maxItemBytes) bytes") }
            guard UInt64(bytes.count - index) >= length else { throw .malformed("truncated item") }
            items.append(Array(bytes[index..<index + Int(length)]))
            index += Int(length)
        }
        guard index == bytes.count else { throw .malformed("trailing bytes") }
        return items
    }

    /// RFC 8949 §3: the initial byte's major type and the argument (§3.3: preferred, shortest form).
    private static func readHead(_ bytes: [UInt8], _ index: inout Int, expecting major: UInt8, what: String) throws(DecodingError) -> UInt64 {
        guard index < bytes.count else { throw .malformed("truncated \(what)") }
        let initial = bytes[index]
        index += 1
        guard initial >> 5 == major else { throw .malformed("expected a \(what)") }
        let info = initial & 0x1F
        switch info {
        case 0..<24:
            return UInt64(info)
        case 24...27:
            let size = 1 << Int(info - 24)
            guard bytes.count - index >= size else { throw .malformed("truncated \(what) length") }
            var value: UInt64 = 0
            for byte in bytes[index..<index + size] { value = value << 8 | UInt64(byte) }
            index += size
            let minimum: UInt64 = size == 1 ? 24 : 1 << (4 * UInt64(size))
            guard value >= minimum else { throw .malformed("\(what) length not in its shortest form") }
            return value
        default:
            throw .malformed("\(what) of indefinite or reserved length")
        }
    }

    private static func head(major: UInt8, count: UInt64) -> [UInt8] {
        let top = major << 5
        switch count {
        case 0..<24: return [top | UInt8(count)]
        case 24...0xFF: return [top | 24, UInt8(count)]
        case 0x100...0xFFFF: return [top | 25, UInt8(count >> 8), UInt8(truncatingIfNeeded: count)]
        case 0x10000...0xFFFF_FFFF: return [top | 26] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: count >> (8 * UInt64($0))) }
        default: return [top | 27] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: count >> (8 * UInt64($0))) }
        }
    }
}
