import Primitives

/// KeyPackage checks that need no group (RFC 9420 §10.1, §7.3), shared by Add validation and the
/// service's KeyPackage publication.
extension KeyPackage {
    static let signatureLabel = "KeyPackageTBS"

    /// RFC 9420 §5.2: KeyPackageRef = RefHash("MLS 1.0 KeyPackage Reference", KeyPackage).
    public func reference(suite: CipherSuite) -> [UInt8] { suite.makeKeyPackageRef(encoded()) }

    /// RFC 9420 §10.1: version mls10, the expected suite, leaf_node_source key_package with a lifetime
    /// that covers `now` (seconds since 1970; nil skips the check, as for a group member who must not
    /// reject a long-lived member), not_after at most `maxLifetime` seconds after `now`, init_key ≠
    /// encryption_key, both signatures, and capabilities listing the suite, the version, the
    /// credential type and the leaf's extensions. `skew` widens the not_before bound.
    /// `verifySignatures: false` is for a package whose exact bytes (its KeyPackageRef) were
    /// already verified, as the service does at publication: it skips the signatures and the KEM
    /// key validity (RFC 9180 §7.1.4), which depend on nothing else.
    public func validate(
        suite: CipherSuite, now: UInt64? = nil, maxLifetime: UInt64? = nil, skew: UInt64 = 0, verifySignatures: Bool = true
    ) throws(KeyPackageError) {
        guard version == .mls10 else { throw .unsupportedVersion(version.rawValue) }
        guard cipherSuite == suite.rawValue else {
            throw .cipherSuiteMismatch(expected: suite.rawValue, actual: cipherSuite)
        }
        guard case .keyPackage(let lifetime) = leafNode.leafNodeSource else { throw .invalidLeafNodeSource }
        if let now {
            guard lifetime.notBefore <= now &+ skew, now <= lifetime.notAfter else { throw .lifetimeNotValidNow }
            if let maxLifetime, lifetime.notAfter > now &+ maxLifetime &+ skew { throw .lifetimeTooLong }
        }
        guard initKey != leafNode.encryptionKey else { throw .initKeyEqualsEncryptionKey }
        guard initKey.count == suite.kem.nPk, leafNode.encryptionKey.count == suite.kem.nPk else { throw .invalidKey }
        let capabilities = leafNode.capabilities
        guard capabilities.cipherSuites.contains(suite.rawValue), capabilities.versions.contains(.mls10),
              capabilities.credentials.contains(leafNode.credential.credentialType) else {
            throw .unsupportedCapabilities
        }
        for ext in leafNode.extensions where !PublicRatchetTree.defaultExtensionTypes.contains(ext.extensionType) {
            guard capabilities.extensions.contains(ext.extensionType) else { throw .unsupportedCapabilities }
        }
        guard verifySignatures else { return }
        // RFC 9180 §7.1.4: the keys a Welcome and later commits encrypt to must be valid for the KEM.
        // A scalar multiplication each, so a package verified at publication skips it with its signatures.
        guard suite.kem.isValidPublicKey(initKey), suite.kem.isValidPublicKey(leafNode.encryptionKey) else { throw .invalidKey }
        guard let key = try? SignaturePublicKey(scheme: suite.signatureScheme, bytes: leafNode.signatureKey) else {
            throw .invalidKey
        }
        guard suite.verifyWithLabel(key, label: "LeafNodeTBS", content: leafNode.tbs().encoded(), signature: leafNode.signature) else {
            throw .invalidLeafNodeSignature
        }
        guard suite.verifyWithLabel(key, label: Self.signatureLabel, content: tbs.encoded(), signature: signature) else {
            throw .invalidKeyPackageSignature
        }
    }

    /// Signs the package with the leaf's signature key (the leaf node must already be signed).
    public mutating func sign(with signingKey: SignaturePrivateKey, suite: CipherSuite) throws(CryptoError) {
        signature = try suite.signWithLabel(signingKey, label: Self.signatureLabel, content: tbs.encoded())
    }

    /// For the service's publication endpoint: `validated(published:)`, which takes an
    /// MLSMessage(KeyPackage) or a bare KeyPackage, without the form.
    public static func validated(
        mlsMessage bytes: [UInt8], expectedSuite: UInt16? = nil, now: UInt64, maxLifetime: UInt64, skew: UInt64 = 0
    ) throws(KeyPackageError) -> (keyPackage: KeyPackage, ref: [UInt8]) {
        let published = try validated(published: bytes, expectedSuite: expectedSuite, now: now, maxLifetime: maxLifetime, skew: skew)
        return (published.keyPackage, published.ref)
    }
}
