import Primitives

/// A KeyPackage with its private keys (RFC 9420 §10): the init key a Welcome is encrypted to, the
/// leaf's HPKE key and the signature key. `description` names no key material.
public struct KeyPackageBundle: Sendable, CustomStringConvertible {
    public let keyPackage: KeyPackage
    public let initPrivateKey: [UInt8]
    public let encryptionPrivateKey: [UInt8]
    public let signingKey: SignaturePrivateKey

    public init(keyPackage: KeyPackage, initPrivateKey: [UInt8], encryptionPrivateKey: [UInt8], signingKey: SignaturePrivateKey) {
        self.keyPackage = keyPackage
        self.initPrivateKey = initPrivateKey
        self.encryptionPrivateKey = encryptionPrivateKey
        self.signingKey = signingKey
    }

    public var description: String { "KeyPackageBundle(\(keyPackage.cipherSuite))" }

    /// The KeyPackageRef (RFC 9420 §5.2).
    public var ref: [UInt8] { keyPackage.reference(suite: CipherSuite(rawValue: keyPackage.cipherSuite)!) }

    /// A fresh KeyPackage: new init and leaf HPKE key pairs, a key_package leaf valid over
    /// `lifetime`, both signatures by `signingKey`.
    public static func generate(
        suite: CipherSuite, credential: Credential, signingKey: SignaturePrivateKey, lifetime: Lifetime,
        capabilities: Capabilities? = nil, leafExtensions: [Extension] = [], extensions: [Extension] = []
    ) throws(GroupError) -> KeyPackageBundle {
        guard signingKey.scheme == suite.signatureScheme else { throw .cipherSuiteMismatch }
        do {
            let initPair = try suite.generateHPKEKeyPair()
            let leafPair = try suite.generateHPKEKeyPair()
            var leaf = LeafNode(
                encryptionKey: leafPair.publicKey, signatureKey: signingKey.publicKey.bytes, credential: credential,
                capabilities: capabilities ?? Group.defaultCapabilities(suite: suite),
                leafNodeSource: .keyPackage(lifetime), extensions: leafExtensions)
            leaf.signature = try suite.signWithLabel(signingKey, label: "LeafNodeTBS", content: leaf.tbs().encoded())
            var keyPackage = KeyPackage(cipherSuite: suite.rawValue, initKey: initPair.publicKey, leafNode: leaf, extensions: extensions)
            try keyPackage.sign(with: signingKey, suite: suite)
            return KeyPackageBundle(keyPackage: keyPackage, initPrivateKey: initPair.privateKey,
                                    encryptionPrivateKey: leafPair.privateKey, signingKey: signingKey)
        } catch {
            throw .crypto(error)
        }
    }
}
