/// Standard base64 (RFC 4648 §4) with optional padding, strict about the alphabet so that malformed
/// input is refused rather than silently truncated. Arithmetic instead of lookup tables: this runs
/// for every `$bytes` field of every request.
public enum Base64 {
    public static func encode(_ bytes: [UInt8], padding: Bool = true) -> String {
        var out: [UInt8] = []
        append(bytes, padding: padding, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the encoding of `bytes` to `out`.
    public static func append(_ bytes: [UInt8], padding: Bool = true, to out: inout [UInt8]) {
        let rest = bytes.count % 3
        let length = bytes.count / 3 * 4 + (rest == 0 ? 0 : padding ? 4 : rest + 1)
        var o = out.count
        // Sized once and filled by index: cheaper than an append per character.
        out.append(contentsOf: repeatElement(UInt8(ascii: "="), count: length))
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out[o] = character(n >> 18); out[o + 1] = character(n >> 12)
            out[o + 2] = character(n >> 6); out[o + 3] = character(n)
            i += 3
            o += 4
        }
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out[o] = character(n >> 18); out[o + 1] = character(n >> 12)
            if rest == 2 { out[o + 2] = character(n >> 6) }
        }
    }

    /// Decodes padded or unpadded base64; nil for any character outside the alphabet, misplaced
    /// padding, an impossible length, or non-zero trailing bits.
    public static func decode(_ text: String) -> [UInt8]? {
        decode(utf8: Array(text.utf8)[...])
    }

    /// `decode(_:)` over the text's UTF-8 bytes.
    public static func decode(utf8 input: ArraySlice<UInt8>) -> [UInt8]? {
        var end = input.endIndex
        if input.count % 4 == 0, input.count >= 4 {
            if input[end - 1] == UInt8(ascii: "=") { end -= 1 }
            if input[end - 1] == UInt8(ascii: "=") { end -= 1 }
        }
        let count = end - input.startIndex
        if count % 4 == 1 { return nil }
        let groups = count / 4
        let tail = count % 4
        var out = [UInt8](repeating: 0, count: groups * 3 + (tail == 0 ? 0 : tail - 1))
        var i = input.startIndex
        var o = 0
        for _ in 0..<groups {
            let a = value(input[i]), b = value(input[i + 1]), c = value(input[i + 2]), d = value(input[i + 3])
            if a | b | c | d > 63 { return nil }
            let n = a << 18 | b << 12 | c << 6 | d
            out[o] = UInt8(truncatingIfNeeded: n >> 16); out[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
            out[o + 2] = UInt8(truncatingIfNeeded: n)
            i += 4
            o += 3
        }
        switch tail {
        case 2:
            let a = value(input[i]), b = value(input[i + 1])
            // 12 bits carry one byte; the low 4 must be zero.
            if a | b > 63 || b & 0xF != 0 { return nil }
            out[o] = UInt8(truncatingIfNeeded: a << 2 | b >> 4)
        case 3:
            let a = value(input[i]), b = value(input[i + 1]), c = value(input[i + 2])
            // 18 bits carry two bytes; the low 2 must be zero.
            if a | b | c > 63 || c & 0x3 != 0 { return nil }
            let n = a << 12 | b << 6 | c
            out[o] = UInt8(truncatingIfNeeded: n >> 10); out[o + 1] = UInt8(truncatingIfNeeded: n >> 2)
        default:
            break
        }
        return out
    }

    /// The alphabet character for the low six bits of `n`.
    private static func character(_ n: UInt32) -> UInt8 {
        let v = UInt8(truncatingIfNeeded: n & 63)
        switch v {
        case 0..<26: return v &+ UInt8(ascii: "A")
        case 26..<52: return v &+ (UInt8(ascii: "a") &- 26)
        case 52..<62: return v &- (52 &- UInt8(ascii: "0"))
        case 62: return UInt8(ascii: "+")
        default: return UInt8(ascii: "/")
        }
    }

    /// The six-bit value of an alphabet character; 0xFF (more than six bits) for anything else.
    private static func value(_ c: UInt8) -> UInt32 {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(c &- UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(c &- UInt8(ascii: "a")) &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c &- UInt8(ascii: "0")) &+ 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: 0xFF
        }
    }
}
