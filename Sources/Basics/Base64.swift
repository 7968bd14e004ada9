/// Base64 (RFC 4648 §4, or the URL-safe alphabet of §5) with optional padding, strict about the
/// alphabet so that malformed input is refused rather than silently truncated, and with exactly one
/// accepted encoding per byte string (plus its padded form). This runs for every `$bytes` field of
/// every request and every service-auth token: lookup tables over unsafe buffers, about a tenth of
/// the instructions of per-character arithmetic on bounds-checked arrays. What it encodes is public
/// (ciphertexts, tokens), so the table lookups' data-dependent addresses leak nothing secret.
public enum Base64 {
    public enum Alphabet: Sendable {
        /// RFC 4648 §4: `+` and `/`.
        case standard
        /// RFC 4648 §5: `-` and `_` (base64url, as JWS uses it, RFC 7515 §2).
        case url

        fileprivate var characters: [UInt8] {
            switch self {
            case .standard: Base64.standardCharacters
            case .url: Base64.urlCharacters
            }
        }

        fileprivate var values: [UInt8] {
            switch self {
            case .standard: Base64.standardValues
            case .url: Base64.urlValues
            }
        }
    }

    public static func encode(_ bytes: [UInt8], padding: Bool = true, alphabet: Alphabet = .standard) -> String {
        let length = encodedLength(bytes.count, padding: padding)
        return String(unsafeUninitializedCapacity: length) { out in
            bytes.withUnsafeBufferPointer { write($0, padding: padding, characters: alphabet.characters, into: out) }
            return length
        }
    }

    /// Appends the encoding of `bytes` to `out`.
    public static func append(_ bytes: [UInt8], padding: Bool = true, alphabet: Alphabet = .standard, to out: inout [UInt8]) {
        let length = encodedLength(bytes.count, padding: padding)
        guard length > 0 else { return }
        // Encoded into scratch space (on the stack when small), then copied in one go: Array has no
        // way to grow by uninitialized elements.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { scratch in
            bytes.withUnsafeBufferPointer { write($0, padding: padding, characters: alphabet.characters, into: scratch) }
            out.append(contentsOf: UnsafeBufferPointer(scratch))
        }
    }

    /// Decodes padded or unpadded base64; nil for any character outside the alphabet, misplaced
    /// padding, an impossible length, or non-zero trailing bits.
    public static func decode(_ text: String, alphabet: Alphabet = .standard) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: $0, alphabet: alphabet) }
    }

    /// `decode(_:)` over the text's UTF-8 bytes.
    public static func decode(utf8 input: ArraySlice<UInt8>, alphabet: Alphabet = .standard) -> [UInt8]? {
        input.withUnsafeBufferPointer { decode(utf8: $0, alphabet: alphabet) }
    }

    /// `decode(_:)` over the text's UTF-8 bytes.
    public static func decode(utf8 input: UnsafeBufferPointer<UInt8>, alphabet: Alphabet = .standard) -> [UInt8]? {
        var end = input.count
        if end % 4 == 0, end >= 4 {
            if input[end - 1] == UInt8(ascii: "=") { end -= 1 }
            if input[end - 1] == UInt8(ascii: "=") { end -= 1 }
        }
        if end % 4 == 1 { return nil }
        let groups = end / 4
        let tail = end % 4
        let count = groups * 3 + (tail == 0 ? 0 : tail - 1)
        var invalid = false
        let out = alphabet.values.withUnsafeBufferPointer { values in
            [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                // Every value is 0–63, or 0xFF for a byte outside the alphabet: OR-ing them all and
                // checking once keeps the loop free of branches.
                var seen: UInt32 = 0
                var i = 0
                var o = 0
                for _ in 0..<groups {
                    let a = UInt32(values[Int(input[i])]), b = UInt32(values[Int(input[i + 1])])
                    let c = UInt32(values[Int(input[i + 2])]), d = UInt32(values[Int(input[i + 3])])
                    seen |= a | b | c | d
                    let n = a << 18 | b << 12 | c << 6 | d
                    out[o] = UInt8(truncatingIfNeeded: n >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: n)
                    i += 4
                    o += 3
                }
                switch tail {
                case 2:
                    let a = UInt32(values[Int(input[i])]), b = UInt32(values[Int(input[i + 1])])
                    seen |= a | b
                    // 12 bits carry one byte; the low 4 must be zero.
                    if b & 0xF != 0 { seen |= 0xFF }
                    out[o] = UInt8(truncatingIfNeeded: a << 2 | b >> 4)
                case 3:
                    let a = UInt32(values[Int(input[i])]), b = UInt32(values[Int(input[i + 1])])
                    let c = UInt32(values[Int(input[i + 2])])
                    seen |= a | b | c
                    // 18 bits carry two bytes; the low 2 must be zero.
                    if c & 0x3 != 0 { seen |= 0xFF }
                    let n = a << 12 | b << 6 | c
                    out[o] = UInt8(truncatingIfNeeded: n >> 10)
                    out[o + 1] = UInt8(truncatingIfNeeded: n >> 2)
                default:
                    break
                }
                invalid = seen > 63
                initialized = count
            }
        }
        return invalid ? nil : out
    }

    // MARK: Encoding

    private static func encodedLength(_ count: Int, padding: Bool) -> Int {
        let rest = count % 3
        return count / 3 * 4 + (rest == 0 ? 0 : padding ? 4 : rest + 1)
    }

    /// Writes the encoding of `bytes` into `out`, which holds exactly `encodedLength` bytes.
    private static func write(_ bytes: UnsafeBufferPointer<UInt8>, padding: Bool, characters: [UInt8],
                              into out: UnsafeMutableBufferPointer<UInt8>) {
        characters.withUnsafeBufferPointer { characters in
            var i = 0
            var o = 0
            while i + 3 <= bytes.count {
                let n = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
                out[o] = characters[n >> 18]
                out[o + 1] = characters[n >> 12 & 63]
                out[o + 2] = characters[n >> 6 & 63]
                out[o + 3] = characters[n & 63]
                i += 3
                o += 4
            }
            let rest = bytes.count - i
            guard rest > 0 else { return }
            let n = Int(bytes[i]) << 16 | (rest == 2 ? Int(bytes[i + 1]) << 8 : 0)
            out[o] = characters[n >> 18]
            out[o + 1] = characters[n >> 12 & 63]
            if rest == 2 { out[o + 2] = characters[n >> 6 & 63] }
            if padding {
                if rest == 1 { out[o + 2] = UInt8(ascii: "=") }
                out[o + 3] = UInt8(ascii: "=")
            }
        }
    }

    // MARK: Tables

    private static let standardCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let standardValues = values(of: standardCharacters)
    private static let urlValues = values(of: urlCharacters)

    /// Six-bit value by byte; 0xFF (more than six bits) for bytes outside the alphabet.
    private static func values(of characters: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in characters.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }
}
