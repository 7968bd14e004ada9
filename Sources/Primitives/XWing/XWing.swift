/// X-Wing (draft-connolly-cfrg-xwing-kem, the final construction of drafts -05 to -10): ML-KEM-768
/// and X25519 under the combiner SHA3-256(ss_M ‖ ss_X ‖ ct_X ‖ pk_X ‖ XWingLabel). A private key is
/// the 32-byte seed, expanded with SHAKE256 whenever it is used.
public enum XWing {
    public static let privateKeySize = 32
    public static let publicKeySize = 1216
    public static let ciphertextSize = 1120
    public static let sharedSecretSize = 32
    public static let encapsulationSeedSize = 64
    /// "\./" "/^\" (draft §5.3).
    static let label: [UInt8] = [0x5C, 0x2E, 0x2F, 0x2F, 0x5E, 0x5C]

    /// A private key expanded (draft §5.2 expandDecapsulationKey): the ML-KEM key from
    /// SHAKE256(sk, 96)[0:64] as (d, z), the X25519 scalar from its last 32 bytes.
    struct ExpandedKey: Sendable {
        let mlkem: MLKEMPrivateKey
        let x25519Private: [UInt8]
        let x25519Public: [UInt8]

        init(seed: [UInt8]) throws(CryptoError) {
            guard seed.count == XWing.privateKeySize else { throw .invalidKey }
            let expanded = SHAKE256.hash(seed, count: 96)
            mlkem = try MLKEMPrivateKey(d: Array(expanded[0..<32]), z: Array(expanded[32..<64]))
            x25519Private = Array(expanded[64..<96])
            x25519Public = try X25519.publicKey(privateKey: x25519Private)
        }

        var publicKey: [UInt8] { mlkem.publicKey.bytes + x25519Public }
    }

    static func combiner(ssM: [UInt8], ssX: [UInt8], ctX: [UInt8], pkX: [UInt8]) -> [UInt8] {
        SHA3.sha256(ssM, ssX, ctX, pkX, label)
    }

    /// The public key pk_M ‖ pk_X of a 32-byte private key (GenerateKeyPairDerand, draft §5.2).
    public static func publicKey(privateKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        try ExpandedKey(seed: privateKey).publicKey
    }

    /// A fresh key pair: 32 random bytes and their public key.
    public static func generateKeyPair() throws(CryptoError) -> (privateKey: [UInt8], publicKey: [UInt8]) {
        let seed = SecureRandom.bytes(privateKeySize)
        return (seed, try publicKey(privateKey: seed))
    }

    /// DeriveKeyPair(ikm) of the X-Wing draft (§5.6): sk = SHAKE256(ikm, 32). This is what hpke-rs
    /// (and so OpenMLS 0.8) computes; see docs/xwing.md.
    public static func deriveKeyPair(ikm: [UInt8]) throws(CryptoError) -> (privateKey: [UInt8], publicKey: [UInt8]) {
        let seed = SHAKE256.hash(ikm, count: privateKeySize)
        return (seed, try publicKey(privateKey: seed))
    }

    /// DeriveKeyPair(ikm) of draft-ietf-hpke-pq: sk = SHAKE256.LabeledDerive(ikm, "DeriveKeyPair", "", 32)
    /// with suite_id "KEM" ‖ I2OSP(0x647a, 2). Not what OpenMLS 0.8 uses; kept for the HPKE-PQ vectors.
    public static func labeledDeriveKeyPair(ikm: [UInt8]) throws(CryptoError) -> (privateKey: [UInt8], publicKey: [UInt8]) {
        let label = Array("DeriveKeyPair".utf8)
        let input = ikm + Array("HPKE-v1".utf8) + Array("KEM".utf8) + [0x64, 0x7A]
            + [UInt8(label.count >> 8), UInt8(label.count & 0xFF)] + label + [0, UInt8(privateKeySize)]
        let seed = SHAKE256.hash(input, count: privateKeySize)
        return (seed, try publicKey(privateKey: seed))
    }

    /// Encapsulate with explicit randomness `eseed` (64 bytes: m for ML-KEM, then the ephemeral X25519
    /// scalar), for known-answer tests (draft §5.4 EncapsulateDerand).
    public static func encapsulate(
        publicKey: [UInt8], seed eseed: [UInt8]
    ) throws(CryptoError) -> (sharedSecret: [UInt8], ciphertext: [UInt8]) {
        guard publicKey.count == publicKeySize else { throw .invalidKey }
        guard eseed.count == encapsulationSeedSize else { throw .invalidParameter("X-Wing encapsulation seed must be 64 bytes") }
        let pkM = Array(publicKey[0..<MLKEM768.encapsulationKeySize])
        let pkX = Array(publicKey[MLKEM768.encapsulationKeySize...])
        let ekX = Array(eseed[32..<64])
        let ctX = try X25519.publicKey(privateKey: ekX)
        let ssX = try X25519.sharedSecret(privateKey: ekX, publicKey: pkX)
        let (ssM, ctM) = try MLKEMPublicKey(checking: pkM).encapsulate(randomness: Array(eseed[0..<32]))
        return (combiner(ssM: ssM, ssX: ssX, ctX: ctX, pkX: pkX), ctM + ctX)
    }

    public static func encapsulate(publicKey: [UInt8]) throws(CryptoError) -> (sharedSecret: [UInt8], ciphertext: [UInt8]) {
        try encapsulate(publicKey: publicKey, seed: SecureRandom.bytes(encapsulationSeedSize))
    }

    /// A public key every party can encapsulate to: the ML-KEM part passes FIPS 203 §7.2, and the
    /// X25519 part is not of small order (libsodium refuses the all-zero shared secret).
    public static func isValidPublicKey(_ publicKey: [UInt8]) -> Bool {
        guard publicKey.count == publicKeySize else { return false }
        return MLKEM768.isValidEncapsulationKey(Array(publicKey[0..<MLKEM768.encapsulationKeySize]))
            && X25519.isValidPublicKey(Array(publicKey[MLKEM768.encapsulationKeySize...]))
    }

    /// A ciphertext every recipient can decapsulate: any ML-KEM part decapsulates (implicit
    /// rejection), the X25519 part must not be of small order.
    public static func isValidCiphertext(_ ciphertext: [UInt8]) -> Bool {
        ciphertext.count == ciphertextSize && X25519.isValidPublicKey(Array(ciphertext[MLKEM768.ciphertextSize...]))
    }

    /// Decapsulate (draft §5.5). A tampered ML-KEM part yields ML-KEM's implicit-rejection secret, so
    /// the result is simply a different (pseudo-random) shared secret. Only a wrong-size input, or
    /// an X25519 part whose shared secret is all zero (a low-order point, which libsodium refuses),
    /// throws.
    public static func decapsulate(privateKey: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard privateKey.count == privateKeySize else { throw .invalidKey }
        guard ciphertext.count == ciphertextSize else { throw .invalidParameter("X-Wing ciphertext must be 1120 bytes") }
        let key = try ExpandedKey(seed: privateKey)
        let ctM = Array(ciphertext[0..<MLKEM768.ciphertextSize])
        let ctX = Array(ciphertext[MLKEM768.ciphertextSize...])
        let ssM = try key.mlkem.decapsulate(ctM)
        let ssX = try X25519.sharedSecret(privateKey: key.x25519Private, publicKey: ctX)
        return combiner(ssM: ssM, ssX: ssX, ctX: ctX, pkX: key.x25519Public)
    }
}
