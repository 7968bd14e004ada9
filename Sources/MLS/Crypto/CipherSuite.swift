import Primitives

/// An MLS cipher suite (RFC 9420 §5.1, §17.1): the KEM, KDF/hash, AEAD and signature scheme that a
/// group uses. The seven suites the RFC registers, and 0x004D, the X-Wing suite OpenMLS defines
/// (`MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519`), which the Catbird client uses.
public struct CipherSuite: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public let kem: KEM
    public let hash: HashAlgorithm
    public let aead: AEADAlgorithm
    public let signatureScheme: SignatureScheme

    public static let mls128DHKEMX25519AES128GCMSHA256Ed25519 = CipherSuite(rawValue: 1)!
    public static let mls128DHKEMP256AES128GCMSHA256P256 = CipherSuite(rawValue: 2)!
    public static let mls128DHKEMX25519ChaCha20Poly1305SHA256Ed25519 = CipherSuite(rawValue: 3)!
    public static let mls256DHKEMX448AES256GCMSHA512Ed448 = CipherSuite(rawValue: 4)!
    public static let mls256DHKEMP521AES256GCMSHA512P521 = CipherSuite(rawValue: 5)!
    public static let mls256DHKEMX448ChaCha20Poly1305SHA512Ed448 = CipherSuite(rawValue: 6)!
    public static let mls256DHKEMP384AES256GCMSHA384P384 = CipherSuite(rawValue: 7)!
    /// X-Wing KEM (ML-KEM-768 + X25519), ChaCha20-Poly1305, SHA-256, Ed25519: OpenMLS's 0x004D.
    public static let mls256XWingChaCha20Poly1305SHA256Ed25519 = CipherSuite(rawValue: 0x004D)!

    /// The seven suites RFC 9420 §17.1 registers (what the interop vectors cover).
    public static let allCases: [CipherSuite] = (1...7).map { CipherSuite(rawValue: $0)! }

    /// Nil for any value other than the seven registered suites (RFC 9420 §17.1) and 0x004D.
    public init?(rawValue: UInt16) {
        switch rawValue {
        case 1: (kem, hash, aead, signatureScheme) = (.dhkemX25519, .sha256, .aes128GCM, .ed25519)
        case 2: (kem, hash, aead, signatureScheme) = (.dhkemP256, .sha256, .aes128GCM, .ecdsaSecp256r1SHA256)
        case 3: (kem, hash, aead, signatureScheme) = (.dhkemX25519, .sha256, .chacha20Poly1305, .ed25519)
        case 4: (kem, hash, aead, signatureScheme) = (.dhkemX448, .sha512, .aes256GCM, .ed448)
        case 5: (kem, hash, aead, signatureScheme) = (.dhkemP521, .sha512, .aes256GCM, .ecdsaSecp521r1SHA512)
        case 6: (kem, hash, aead, signatureScheme) = (.dhkemX448, .sha512, .chacha20Poly1305, .ed448)
        case 7: (kem, hash, aead, signatureScheme) = (.dhkemP384, .sha384, .aes256GCM, .ecdsaSecp384r1SHA384)
        case 0x004D: (kem, hash, aead, signatureScheme) = (.xwing, .sha256, .chacha20Poly1305, .ed25519)
        default: return nil
        }
        self.rawValue = rawValue
    }

    public init?(id: UInt16) { self.init(rawValue: id) }

    /// The KDF output size, which is also the hash size (RFC 9420 §5.1: Nh).
    public var nh: Int { hash.outputSize }
    /// AEAD key size (Nk).
    public var nk: Int { aead.keySize }
    /// AEAD nonce size (Nn).
    public var nn: Int { aead.nonceSize }

    /// The HPKE instance of this suite: its KEM with the suite's KDF and AEAD.
    public var hpke: HPKE { HPKE(kem: kem, kdf: hash, aead: aead) }

    public var description: String { "CipherSuite(\(rawValue))" }

    public static func == (a: CipherSuite, b: CipherSuite) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

extension CipherSuite {
    public func hash(_ data: [UInt8]) -> [UInt8] { hash.hash(data) }

    /// MAC = HMAC with the suite's hash (RFC 9420 §5.1).
    public func mac(key: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try HMAC.authenticationCode(for: data, key: key, hash: hash)
    }

    public func kdfExtract(salt: [UInt8], ikm: [UInt8]) throws(CryptoError) -> [UInt8] {
        try HKDF.extract(salt: salt, ikm: ikm, hash: hash)
    }

    public func kdfExpand(prk: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        try HKDF.expand(prk: prk, info: info, length: length, hash: hash)
    }

    public func seal(key: [UInt8], nonce: [UInt8], aad: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try aead.seal(key: key, nonce: nonce, plaintext: plaintext, authenticating: aad)
    }

    public func open(key: [UInt8], nonce: [UInt8], aad: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try aead.open(key: key, nonce: nonce, ciphertext: ciphertext, authenticating: aad)
    }
}
