import Primitives

/// A blob's id: 128 random bits as 26 lowercase RFC 4648 base32 characters (no padding).
enum BlobID {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    static func generate() -> String { encode(SecureRandom.bytes(16)) }

    /// RFC 4648 §6, lowercase, unpadded.
    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[(buffer >> bits) & 31])
            }
            buffer &= (1 << bits) - 1
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` has the form of a blob id (checked before any database lookup).
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 26 && text.utf8.allSatisfy { alphabet.contains($0) }
    }
}
