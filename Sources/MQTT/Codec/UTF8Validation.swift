/// Why bytes are not a valid MQTT UTF-8 Encoded String (MQTT 5.0 §1.5.4, RFC 3629 §4).
public enum UTF8ValidationError: Error, Equatable, Sendable {
    /// A byte that cannot start or continue a sequence (0x80–0xC1 as a lead, 0xF5–0xFF anywhere).
    case invalidByte(offset: Int)
    /// A lead byte not followed by enough continuation bytes.
    case truncatedSequence(offset: Int)
    /// A longer encoding than the code point needs (RFC 3629 §3).
    case overlongEncoding(offset: Int)
    // MQTT 5.0 §1.5.4 [MQTT-1.5.4-1]: U+D800..U+DFFF must not be encoded.
    case surrogate(offset: Int)
    /// Above U+10FFFF.
    case beyondUnicode(offset: Int)
    // MQTT 5.0 §1.5.4 [MQTT-1.5.4-2]: U+0000 must not appear.
    case nullCharacter(offset: Int)
}

public enum UTF8Validation {
    /// Checks well-formed UTF-8 without U+0000 (MQTT 5.0 §1.5.4). The Disallowed Unicode code points
    /// (controls, non-characters) are a SHOULD NOT for senders, and a receiver MAY refuse them; we accept
    /// them, and U+FEFF is kept as it is [MQTT-1.5.4-3].
    public static func validate<C: Collection>(_ bytes: C, allowNull: Bool = false) throws(UTF8ValidationError)
    where C.Element == UInt8, C.Index == Int {
        var index = bytes.startIndex
        let end = bytes.endIndex
        while index < end {
            let lead = bytes[index]
            let offset = index - bytes.startIndex
            if lead < 0x80 {
                if lead == 0, !allowNull { throw .nullCharacter(offset: offset) }
                index += 1
                continue
            }
            let count: Int
            var scalar: UInt32
            switch lead {
            case 0xC2...0xDF: count = 2; scalar = UInt32(lead & 0x1F)
            case 0xE0...0xEF: count = 3; scalar = UInt32(lead & 0x0F)
            case 0xF0...0xF4: count = 4; scalar = UInt32(lead & 0x07)
            case 0xC0, 0xC1: throw .overlongEncoding(offset: offset)
            default: throw .invalidByte(offset: offset)
            }
            guard end - index >= count else { throw .truncatedSequence(offset: offset) }
            for next in (index + 1)..<(index + count) {
                let byte = bytes[next]
                guard byte & 0xC0 == 0x80 else { throw .truncatedSequence(offset: offset) }
                scalar = scalar << 6 | UInt32(byte & 0x3F)
            }
            switch count {
            case 3 where scalar < 0x800: throw .overlongEncoding(offset: offset)
            case 4 where scalar < 0x10000: throw .overlongEncoding(offset: offset)
            default: break
            }
            if (0xD800...0xDFFF).contains(scalar) { throw .surrogate(offset: offset) }
            if scalar > 0x10FFFF { throw .beyondUnicode(offset: offset) }
            index += count
        }
    }

    public static func isValid<C: Collection>(_ bytes: C, allowNull: Bool = false) -> Bool
    where C.Element == UInt8, C.Index == Int {
        do { try validate(bytes, allowNull: allowNull); return true } catch { return false }
    }
}
