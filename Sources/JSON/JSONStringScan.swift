/// Finds the end of the bytes a JSON string carries as they are (RFC 8259 §7: anything but a
/// quotation mark, a reverse solidus or a control character), eight bytes per step: string content
/// is most of every request and response body, and base64 most of that.
enum JSONStringScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The index of the first byte at or after `start` that is `"`, `\`, below 0x20 or, when
    /// `stopAtNonASCII`, 0x80 or above; `bytes.count` when there is none.
    static func firstSpecial(in bytes: UnsafeRawBufferPointer, from start: Int, stopAtNonASCII: Bool) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let count = bytes.count
        var index = start
        let nonASCII = stopAtNonASCII ? highBits : 0
        while index + 8 <= count {
            let word = UInt64(littleEndian: (base + index).loadUnaligned(as: UInt64.self))
            // Per byte, the high bit of each term is set where (at least where, for the first one
            // found) a byte is below 0x20, equal to `"`, equal to `\`, at or above 0x80; borrows can
            // only mark bytes after a true hit, so the lowest mark is exact: the first special byte.
            // (`&` binds tighter than `&-`: every subtraction is parenthesized.)
            let control = (word &- 0x20 &* ones) & ~word
            let quotes = word ^ (0x22 &* ones), backslashes = word ^ (0x5C &* ones)
            let quote = (quotes &- ones) & ~quotes
            let backslash = (backslashes &- ones) & ~backslashes
            let marks = (control | quote | backslash | word & nonASCII) & highBits
            if marks != 0 { return index + marks.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (stopAtNonASCII && byte >= 0x80) { break }
            index += 1
        }
        return index
    }
}
