/// Byte classes from the HTTP grammar (RFC 9110 §5.6, RFC 9112 §2).
enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let comma: UInt8 = 0x2C
    static let questionMark: UInt8 = 0x3F
    static let zero: UInt8 = 0x30

    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
    ///       / DIGIT / ALPHA (RFC 9110 §5.6.2)
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    /// field-vchar / SP / HTAB, obs-text allowed (RFC 9110 §5.5); other CTLs and DEL are not.
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    /// Whether every byte is a field value byte, eight at a time: a token's value is a long run.
    static func areFieldValueBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        while index + 8 <= bytes.count {
            let word = (base + index).loadUnaligned(as: UInt64.self)
            // High bits mark bytes below 0x20 (a tab among them too) or equal to DEL; none is exact.
            let control = (word &- 0x20 &* ones) & ~word
            let delete = (word ^ (0x7F &* ones)) &- ones & ~(word ^ (0x7F &* ones))
            if (control | delete) & highBits != 0 { break }
            index += 8
        }
        while index < bytes.count {
            if !isFieldValueByte(base.load(fromByteOffset: index, as: UInt8.self)) { return false }
            index += 1
        }
        return true
    }

    /// A request-target is visible ASCII without spaces (RFC 9112 §3.2, RFC 3986).
    static func isTargetByte(_ byte: UInt8) -> Bool {
        byte >= 0x21 && byte <= 0x7E
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }
}
