import Primitives

/// A `#operationId` or `#deviceId` of the chat contract: a UUIDv4 (RFC 9562 §5.4) whose only text
/// form is lowercase and hyphenated, and whose signed form is its 16 raw bytes.
public struct ChatUUID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// The 36-character canonical text; anything else (uppercase, braces, another version or
    /// variant) is refused.
    public init?(_ text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        self.init(bytes: bytes)
    }

    /// 16 bytes with version 4 and the RFC 4122 variant.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16, bytes[6] >> 4 == 4, bytes[8] >> 6 == 0b10 else { return nil }
        self.bytes = bytes
    }

    /// A fresh random UUIDv4.
    public static func random() -> ChatUUID {
        var bytes = SecureRandom.bytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return ChatUUID(bytes: bytes)!
    }

    public var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Raw byte order, the order the contract sorts leaves by.
    public static func < (lhs: ChatUUID, rhs: ChatUUID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }
}
