import Basics

/// base64url without padding (RFC 4648 §5, RFC 7515 §2). Decoding tolerates correct `=` padding
/// and rejects everything else: other alphabets, whitespace, impossible lengths and non-zero
/// trailing bits, so every byte string has exactly one accepted encoding (plus its padded form).
/// `Base64` with the URL-safe alphabet underneath.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        Base64.encode(bytes, padding: false, alphabet: .url)
    }

    public static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ Base64.decode(utf8: $0, alphabet: .url) }) {
            return decoded
        }
        return Base64.decode(utf8: Array(text.utf8)[...], alphabet: .url)
    }
}
