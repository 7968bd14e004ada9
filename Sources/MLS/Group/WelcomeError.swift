import Primitives

/// Why making or processing a Welcome or a GroupInfo failed (RFC 9420 §12.4.3).
public enum WelcomeError: Error, Sendable, Equatable {
    /// The Welcome, the KeyPackage or the GroupInfo name different cipher suites.
    case cipherSuiteMismatch
    case unsupportedCipherSuite(UInt16)
    /// No EncryptedGroupSecrets is addressed to our KeyPackageRef.
    case noSecretsForKeyPackage
    /// HPKE decryption of the GroupSecrets failed: wrong init key or tampering.
    case groupSecretsDecryptionFailed
    /// AEAD decryption of the GroupInfo failed: wrong welcome secret (or PSKs) or tampering.
    case groupInfoDecryptionFailed
    case malformedGroupSecrets(DecodingError)
    case malformedGroupInfo(DecodingError)
    /// GroupSecrets name a PSK the caller does not have.
    case missingPSK(PreSharedKeyID)
    case invalidGroupInfoSignature
    /// The GroupInfo's confirmation tag does not match the key schedule and transcript hash.
    case invalidConfirmationTag
    case crypto(CryptoError)
}
