import Primitives

/// The labelled operations of RFC 9420 §5 on top of a cipher suite.
extension CipherSuite {
    static let labelPrefix = Array("MLS 1.0 ".utf8)

    /// ExpandWithLabel(Secret, Label, Context, Length) with KDFLabel (RFC 9420 §5.1).
    public func expandWithLabel(
        secret: [UInt8], label: String, context: [UInt8], length: Int
    ) throws(CryptoError) -> [UInt8] {
        try expandWithLabel(secret: secret, label: Array(label.utf8), context: context, length: length)
    }

    public func expandWithLabel(
        secret: [UInt8], label: [UInt8], context: [UInt8], length: Int
    ) throws(CryptoError) -> [UInt8] {
        guard length >= 0, length <= 0xffff else { throw .invalidParameter("ExpandWithLabel length") }
        guard label.count + Self.labelPrefix.count <= TLSWriter.maxVarint, context.count <= TLSWriter.maxVarint else {
            throw .invalidParameter("ExpandWithLabel input too long")
        }
        var writer = TLSWriter(capacity: 16 + label.count + context.count)
        writer.write(UInt16(length))
        writer.writeOpaque(Self.labelPrefix + label)
        writer.writeOpaque(context)
        return try kdfExpand(prk: secret, info: writer.bytes, length: length)
    }

    /// DeriveSecret(Secret, Label) = ExpandWithLabel(Secret, Label, "", Nh).
    public func deriveSecret(secret: [UInt8], label: String) throws(CryptoError) -> [UInt8] {
        try expandWithLabel(secret: secret, label: label, context: [], length: nh)
    }

    /// DeriveTreeSecret(Secret, Label, Generation, Length) (RFC 9420 §9).
    public func deriveTreeSecret(
        secret: [UInt8], label: String, generation: UInt32, length: Int
    ) throws(CryptoError) -> [UInt8] {
        var context = TLSWriter(capacity: 4)
        context.write(generation)
        return try expandWithLabel(secret: secret, label: label, context: context.bytes, length: length)
    }

    /// SignContent = struct { opaque label<V>; opaque content<V>; } (RFC 9420 §5.1.2).
    static func signContent(label: String, content: [UInt8]) -> [UInt8] {
        var writer = TLSWriter(capacity: 16 + content.count)
        writer.writeOpaque(labelPrefix + Array(label.utf8))
        writer.writeOpaque(content)
        return writer.bytes
    }

    public func signWithLabel(
        _ key: SignaturePrivateKey, label: String, content: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        guard key.scheme == signatureScheme else { throw .invalidKey }
        return try key.signature(for: Self.signContent(label: label, content: content))
    }

    public func signWithLabel(privateKey: [UInt8], label: String, content: [UInt8]) throws(CryptoError) -> [UInt8] {
        try signWithLabel(SignaturePrivateKey(scheme: signatureScheme, bytes: privateKey), label: label, content: content)
    }

    public func verifyWithLabel(
        _ key: SignaturePublicKey, label: String, content: [UInt8], signature: [UInt8]
    ) -> Bool {
        guard key.scheme == signatureScheme else { return false }
        return key.isValidSignature(signature, for: Self.signContent(label: label, content: content))
    }

    /// False for a malformed key as well as a bad signature.
    public func verifyWithLabel(publicKey: [UInt8], label: String, content: [UInt8], signature: [UInt8]) -> Bool {
        guard let key = try? SignaturePublicKey(scheme: signatureScheme, bytes: publicKey) else { return false }
        return verifyWithLabel(key, label: label, content: content, signature: signature)
    }

    /// EncryptContext = struct { opaque label<V>; opaque context<V>; } (RFC 9420 §5.1.3).
    static func encryptContext(label: String, context: [UInt8]) -> [UInt8] {
        var writer = TLSWriter(capacity: 16 + context.count)
        writer.writeOpaque(labelPrefix + Array(label.utf8))
        writer.writeOpaque(context)
        return writer.bytes
    }

    /// EncryptWithLabel = SealBase(PublicKey, EncryptContext, "", Plaintext).
    public func encryptWithLabel(
        publicKey: [UInt8], label: String, context: [UInt8], plaintext: [UInt8]
    ) throws(CryptoError) -> (kemOutput: [UInt8], ciphertext: [UInt8]) {
        let sealed = try hpke.sealBase(
            publicKey: publicKey, info: Self.encryptContext(label: label, context: context), aad: [], plaintext: plaintext)
        return (sealed.enc, sealed.ciphertext)
    }

    /// EncryptContext prepared once, for EncryptWithLabel to many keys with the same label and context.
    func prepareEncryptContext(label: String, context: [UInt8]) throws(CryptoError) -> HPKEPreparedInfo {
        try hpke.prepare(info: Self.encryptContext(label: label, context: context))
    }

    /// EncryptWithLabel with an EncryptContext from `prepareEncryptContext`.
    func encryptWithLabel(
        publicKey: [UInt8], prepared: HPKEPreparedInfo, plaintext: [UInt8]
    ) throws(CryptoError) -> (kemOutput: [UInt8], ciphertext: [UInt8]) {
        let sealed = try hpke.sealBase(publicKey: publicKey, prepared: prepared, aad: [], plaintext: plaintext)
        return (sealed.enc, sealed.ciphertext)
    }

    public func decryptWithLabel(
        privateKey: [UInt8], label: String, context: [UInt8], kemOutput: [UInt8], ciphertext: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try hpke.openBase(
            enc: kemOutput, privateKey: privateKey, info: Self.encryptContext(label: label, context: context),
            aad: [], ciphertext: ciphertext)
    }

    /// RefHash(Label, Value) = Hash(RefHashInput); the label is used as given (RFC 9420 §5.2).
    public func refHash(label: [UInt8], value: [UInt8]) -> [UInt8] {
        var writer = TLSWriter(capacity: 16 + label.count + value.count)
        writer.writeOpaque(label)
        writer.writeOpaque(value)
        return hash(writer.bytes)
    }

    public func refHash(label: String, value: [UInt8]) -> [UInt8] { refHash(label: Array(label.utf8), value: value) }

    /// KeyPackageRef over an encoded KeyPackage (RFC 9420 §5.2).
    public func makeKeyPackageRef(_ encodedKeyPackage: [UInt8]) -> [UInt8] {
        refHash(label: "MLS 1.0 KeyPackage Reference", value: encodedKeyPackage)
    }

    /// ProposalRef over an encoded AuthenticatedContent (RFC 9420 §5.2).
    public func makeProposalRef(_ encodedAuthenticatedContent: [UInt8]) -> [UInt8] {
        refHash(label: "MLS 1.0 Proposal Reference", value: encodedAuthenticatedContent)
    }

    /// HPKE key pair for this suite's KEM from a secret (DeriveKeyPair, RFC 9180 §7.1.3).
    public func deriveKeyPair(_ secret: [UInt8]) throws(CryptoError) -> HPKEKeyPair {
        try kem.deriveKeyPair(ikm: secret)
    }

    public func generateHPKEKeyPair() throws(CryptoError) -> HPKEKeyPair { try kem.generateKeyPair() }
}
