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

        fileprivate var tables: Tables {
            switch self {
            case .standard: Base64.standardTables
            case .url: Base64.urlTables
            }
        }
    }

    public static func encode(_ bytes: [UInt8], padding: Bool = true, alphabet: Alphabet = .standard) -> String {
        let length = encodedLength(of: bytes.count, padding: padding)
        return String(unsafeUninitializedCapacity: length) { out in
            bytes.withUnsafeBufferPointer { write($0, padding: padding, tables: alphabet.tables, into: out.baseAddress!) }
            return length
        }
    }

    /// Appends the encoding of `bytes` to `out`.
    public static func append(_ bytes: [UInt8], padding: Bool = true, alphabet: Alphabet = .standard, to out: inout [UInt8]) {
        let length = encodedLength(of: bytes.count, padding: padding)
        guard length > 0 else { return }
        // Encoded into scratch space (on the stack when small), then copied in one go: Array has no
        // way to grow by uninitialized elements.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { scratch in
            bytes.withUnsafeBufferPointer { write($0, padding: padding, tables: alphabet.tables, into: scratch.baseAddress!) }
            out.append(contentsOf: UnsafeBufferPointer(scratch))
        }
    }


    /// Writes the encoding of `bytes` at `out`, which has room for `encodedLength(of:padding:)` bytes.
    public static func write(_ bytes: UnsafeBufferPointer<UInt8>, padding: Bool = true, alphabet: Alphabet = .standard,
                             into out: UnsafeMutablePointer<UInt8>) {
        write(bytes, padding: padding, tables: alphabet.tables, into: out)
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
        guard end > 0, let text = input.baseAddress else { return [] }
        let groups = end / 4
        let tail = end % 4
        let count = groups * 3 + (tail == 0 ? 0 : tail - 1)
        // Per character position in a group, the six-bit value already shifted into place, or
        // `Tables.invalid` (above 24 bits) for a byte outside the alphabet: OR-ing them gives the
        // group's 24 bits, and one check at the end catches any invalid byte.
        let d0 = alphabet.tables.decode, d1 = d0 + 256, d2 = d0 + 512, d3 = d0 + 768
        var seen: UInt32 = 0
        let out = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let out = buffer.baseAddress!
            var i = 0
            var o = 0
            for _ in 0..<groups {
                let n = d0[Int(text[i])] | d1[Int(text[i + 1])] | d2[Int(text[i + 2])] | d3[Int(text[i + 3])]
                seen |= n
                out[o] = UInt8(truncatingIfNeeded: n >> 16)
                out[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
                out[o + 2] = UInt8(truncatingIfNeeded: n)
                i += 4
                o += 3
            }
            switch tail {
            case 2:
                let n = d0[Int(text[i])] | d1[Int(text[i + 1])]
                // 12 bits carry one byte; the low 4 must be zero.
                seen |= n | (n & 0xF000 == 0 ? 0 : Tables.invalid)
                out[o] = UInt8(truncatingIfNeeded: n >> 16)
            case 3:
                let n = d0[Int(text[i])] | d1[Int(text[i + 1])] | d2[Int(text[i + 2])]
                // 18 bits carry two bytes; the low 2 must be zero.
                seen |= n | (n & 0xC0 == 0 ? 0 : Tables.invalid)
                out[o] = UInt8(truncatingIfNeeded: n >> 16)
                out[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
            default:
                break
            }
            initialized = count
        }
        return seen & Tables.invalid == 0 ? out : nil
    }

    // MARK: Encoding

    /// The length of the encoding of `count` bytes.
    public static func encodedLength(of count: Int, padding: Bool = true) -> Int {
        let rest = count % 3
        return count / 3 * 4 + (rest == 0 ? 0 : padding ? 4 : rest + 1)
    }

    /// Writes the encoding of `bytes` at `out`, which has room for exactly `encodedLength` bytes:
    /// each three bytes as two twelve-bit halves, each half two characters from the pair table.
    private static func write(_ bytes: UnsafeBufferPointer<UInt8>, padding: Bool, tables: Tables,
                              into out: UnsafeMutablePointer<UInt8>) {
        let pairs = tables.pairs
        let raw = UnsafeMutableRawPointer(out)
        var i = 0
        var o = 0
        while i + 3 <= bytes.count {
            let n = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            raw.storeBytes(of: pairs[n >> 12], toByteOffset: o, as: UInt16.self)
            raw.storeBytes(of: pairs[n & 0xFFF], toByteOffset: o + 2, as: UInt16.self)
            i += 3
            o += 4
        }
        let rest = bytes.count - i
        guard rest > 0 else { return }
        let characters = tables.characters
        let n = Int(bytes[i]) << 16 | (rest == 2 ? Int(bytes[i + 1]) << 8 : 0)
        out[o] = characters[n >> 18]
        out[o + 1] = characters[n >> 12 & 63]
        if rest == 2 { out[o + 2] = characters[n >> 6 & 63] }
        if padding {
            if rest == 1 { out[o + 2] = UInt8(ascii: "=") }
            out[o + 3] = UInt8(ascii: "=")
        }
    }

    // MARK: Tables

    /// One alphabet's lookup tables, built once at first use and never freed (about 12 KB).
    fileprivate struct Tables: @unchecked Sendable {
        /// Above every group's 24 bits: the decode tables' mark for a byte outside the alphabet.
        static let invalid: UInt32 = 0x0100_0000

        /// The 64 characters.
        let characters: UnsafePointer<UInt8>
        /// 4096 entries: the two characters of a twelve-bit value, in memory order when stored.
        let pairs: UnsafePointer<UInt16>
        /// 4 × 256 entries: by position in a group and byte, the byte's six-bit value shifted to
        /// its place in the group's 24 bits (18, 12, 6, 0), or `invalid`.
        let decode: UnsafePointer<UInt32>

        init(_ alphabet: String) {
            let characters = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
            characters.initialize(from: Array(alphabet.utf8), count: 64)
            let pairs = UnsafeMutablePointer<UInt16>.allocate(capacity: 4096)
            for value in 0..<4096 {
                pairs[value] = (UInt16(characters[value >> 6]) | UInt16(characters[value & 63]) << 8).littleEndian
            }
            let decode = UnsafeMutablePointer<UInt32>.allocate(capacity: 1024)
            decode.initialize(repeating: Self.invalid, count: 1024)
            for index in 0..<64 {
                for position in 0..<4 {
                    decode[position * 256 + Int(characters[index])] = UInt32(index) << (18 - 6 * position)
                }
            }
            self.characters = UnsafePointer(characters)
            self.pairs = UnsafePointer(pairs)
            self.decode = UnsafePointer(decode)
        }
    }

    private static let standardTables = Tables("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    private static let urlTables = Tables("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
}
