import Basics
import Primitives

/// The contract's `#keyId`: the unpadded base64url SHA-256 of a device's raw 32-byte Ed25519 key.
public enum ChatKeyID {
    public static func of(publicKey: [UInt8]) -> String {
        Base64.encode(HashAlgorithm.sha256.hash(publicKey), padding: false, alphabet: .url)
    }

    /// Whether `text` is a canonical key id: 43 characters of unpadded base64url decoding to 32 bytes.
    public static func isWellFormed(_ text: String) -> Bool {
        guard text.utf8.count == 43, let bytes = Base64.decode(text, alphabet: .url), bytes.count == 32 else { return false }
        return Base64.encode(bytes, padding: false, alphabet: .url) == text
    }
}
