/// Why a KeyPackage is not acceptable (RFC 9420 §10.1, and the service's publication rules).
public enum KeyPackageError: Error, Sendable, Equatable {
    /// The bytes are neither an MLSMessage carrying a KeyPackage nor a bare KeyPackage.
    case malformed(DecodingError)
    /// An MLSMessage of another kind (a Welcome, a GroupInfo, …).
    case notAKeyPackage
    case unsupportedVersion(UInt16)
    case unsupportedCipherSuite(UInt16)
    /// The package's suite is not the one expected (the group's, or the declared one).
    case cipherSuiteMismatch(expected: UInt16, actual: UInt16)
    /// leaf_node_source is not key_package.
    case invalidLeafNodeSource
    /// `now` is outside [not_before, not_after].
    case lifetimeNotValidNow
    /// not_after lies further ahead than the allowed maximum lifetime.
    case lifetimeTooLong
    /// init_key equals the leaf's encryption_key (RFC 9420 §10.1).
    case initKeyEqualsEncryptionKey
    /// A key that does not have the suite's encoding size.
    case invalidKey
    case invalidKeyPackageSignature
    case invalidLeafNodeSignature
    /// The leaf's capabilities do not list the suite, the version, its own credential type, or an
    /// extension it carries.
    case unsupportedCapabilities
}
