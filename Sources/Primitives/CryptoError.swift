/// Why a cryptographic operation failed. Bad input (a malformed key, a forged signature, a tampered
/// ciphertext) has its own case; `internal` means the C library itself failed.
public enum CryptoError: Error, Sendable, Equatable {
    /// Key bytes of the wrong size, not on the curve, or out of range.
    case invalidKey
    /// A signature that is malformed (wrong size, bad DER) where it must be parsed, not just checked.
    case invalidSignature
    /// AEAD authentication failed: wrong key, nonce, associated data or tampered ciphertext.
    case decryptionFailed
    /// A parameter of the wrong size (nonce, output length beyond what HKDF allows, …).
    case invalidParameter(String)
    /// A Diffie-Hellman result that must be rejected (all-zero X25519/X448 output, RFC 7748 §6).
    case invalidSharedSecret
    /// HPKE DeriveKeyPair found no valid scalar in 256 attempts (RFC 9180 §7.1.3).
    case deriveKeyPairError
    /// The C library failed; the text names the function and OpenSSL's error code.
    case `internal`(String)
}
