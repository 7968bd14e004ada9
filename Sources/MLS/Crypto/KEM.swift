import Primitives

/// An HPKE key pair in the KEM's serialisation (RFC 9180 §7.1.1): raw X25519/X448 keys, or a
/// big-endian scalar and an uncompressed SEC1 point for the NIST curves.
public struct HPKEKeyPair: Sendable {
    public let privateKey: [UInt8]
    public let publicKey: [UInt8]

    public init(privateKey: [UInt8], publicKey: [UInt8]) {
        self.privateKey = privateKey
        self.publicKey = publicKey
    }
}

/// The DHKEMs of RFC 9180 §4.1 used by MLS suites, and X-Wing (ML-KEM-768 + X25519) under the HPKE
/// KEM id hpke-rs uses for it, 0x647a (draft-connolly-cfrg-xwing-kem §7).
public enum KEM: UInt16, Sendable, CaseIterable {
    case dhkemP256 = 0x0010
    case dhkemP384 = 0x0011
    case dhkemP521 = 0x0012
    case dhkemX25519 = 0x0020
    case dhkemX448 = 0x0021
    case xwing = 0x647a

    /// The KDF inside the KEM (RFC 9180 §7.1); X-Wing has none (its combiner is SHA3-256).
    public var kdfHash: HashAlgorithm {
        switch self {
        case .dhkemP256, .dhkemX25519, .xwing: .sha256
        case .dhkemP384: .sha384
        case .dhkemP521, .dhkemX448: .sha512
        }
    }

    public var nSecret: Int { kdfHash.outputSize }

    public var nPk: Int {
        switch self {
        case .dhkemP256: 65
        case .dhkemP384: 97
        case .dhkemP521: 133
        case .dhkemX25519: 32
        case .dhkemX448: 56
        case .xwing: XWing.publicKeySize
        }
    }

    public var nEnc: Int { self == .xwing ? XWing.ciphertextSize : nPk }

    public var nSk: Int {
        switch self {
        case .dhkemP256: 32
        case .dhkemP384: 48
        case .dhkemP521: 66
        case .dhkemX25519: 32
        case .dhkemX448: 56
        case .xwing: XWing.privateKeySize
        }
    }

    var curve: ECCurve? {
        switch self {
        case .dhkemP256: .p256
        case .dhkemP384: .p384
        case .dhkemP521: .p521
        case .dhkemX25519, .dhkemX448, .xwing: nil
        }
    }

    /// suite_id = "KEM" || I2OSP(kem_id, 2) (RFC 9180 §4.1).
    var labels: HPKELabels { HPKELabels(suiteID: Array("KEM".utf8) + i2osp(rawValue), hash: kdfHash) }

    // MARK: DH

    public func publicKey(privateKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard privateKey.count == nSk else { throw .invalidKey }
        switch self {
        case .dhkemX25519: return try X25519.publicKey(privateKey: privateKey)
        case .dhkemX448: return try X448.publicKey(privateKey: privateKey)
        case .xwing: return try XWing.publicKey(privateKey: privateKey)
        default: return try ECDH.publicKey(curve: curve!, privateKey: privateKey)
        }
    }

    /// DH(skX, pkY); public keys must be exactly Npk bytes (NIST points uncompressed).
    func dh(privateKey: [UInt8], publicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard privateKey.count == nSk, publicKey.count == nPk else { throw .invalidKey }
        switch self {
        case .dhkemX25519: return try X25519.sharedSecret(privateKey: privateKey, publicKey: publicKey)
        case .dhkemX448: return try X448.sharedSecret(privateKey: privateKey, publicKey: publicKey)
        case .xwing: throw .invalidParameter("X-Wing is not a Diffie-Hellman KEM")
        default:
            guard publicKey.first == 0x04 else { throw .invalidKey }
            return try ECDH.sharedSecret(curve: curve!, privateKey: privateKey, publicKey: publicKey)
        }
    }

    /// True for a public key (or an encapsulated key, RFC 9180 §4.1: `enc` is one) that every party
    /// can use: Npk bytes in the KEM's serialization, a point on the curve for the NIST curves, not
    /// of small order for X25519/X448 (RFC 9180 §7.1.4). A key that fails this makes every
    /// encryption to it, or decapsulation of it, fail.
    public func isValidPublicKey(_ publicKey: [UInt8]) -> Bool {
        guard publicKey.count == nPk else { return false }
        switch self {
        case .dhkemX25519: return X25519.isValidPublicKey(publicKey)
        case .dhkemX448: return X448.isValidPublicKey(publicKey)
        case .xwing: return XWing.isValidPublicKey(publicKey)
        case .dhkemP256, .dhkemP384, .dhkemP521: return ECDH.isValidUncompressedPublicKey(curve: curve!, publicKey)
        }
    }

    /// True for an encapsulated key (`enc`, an HPKE kem_output) every recipient can decapsulate: for
    /// the DHKEMs a valid public key; for X-Wing 1120 bytes whose X25519 part is not of small order
    /// (its ML-KEM part always decapsulates, by implicit rejection).
    public func isValidEncapsulatedKey(_ enc: [UInt8]) -> Bool {
        self == .xwing ? XWing.isValidCiphertext(enc) : isValidPublicKey(enc)
    }

    // MARK: Key derivation

    /// DeriveKeyPair(ikm) (RFC 9180 §7.1.3); for the NIST curves, rejection sampling over a counter.
    /// X-Wing: the X-Wing draft's SHAKE256(ikm, 32) seed, as hpke-rs and so OpenMLS 0.8 compute it.
    public func deriveKeyPair(ikm: [UInt8]) throws(CryptoError) -> HPKEKeyPair {
        if self == .xwing {
            let pair = try XWing.deriveKeyPair(ikm: ikm)
            return HPKEKeyPair(privateKey: pair.privateKey, publicKey: pair.publicKey)
        }
        let labels = self.labels
        let dkpPRK = try labels.extract(salt: [], label: "dkp_prk", ikm: ikm)
        guard let curve else {
            let sk = try labels.expand(prk: dkpPRK, label: "sk", info: [], length: nSk)
            return HPKEKeyPair(privateKey: sk, publicKey: try publicKey(privateKey: sk))
        }
        let bitmask: UInt8 = self == .dhkemP521 ? 0x01 : 0xff
        for counter in 0...255 {
            var bytes = try labels.expand(prk: dkpPRK, label: "candidate", info: [UInt8(counter)], length: nSk)
            bytes[0] &= bitmask
            if ECDH.isValidPrivateKey(curve: curve, bytes) {
                return HPKEKeyPair(privateKey: bytes, publicKey: try ECDH.publicKey(curve: curve, privateKey: bytes))
            }
        }
        throw .deriveKeyPairError
    }

    /// A fresh key pair: DeriveKeyPair over Nsk random bytes (RFC 9180 §7.1.2).
    public func generateKeyPair() throws(CryptoError) -> HPKEKeyPair {
        try deriveKeyPair(ikm: SecureRandom.bytes(nSk))
    }

    // MARK: Encapsulation (RFC 9180 §4.1)

    /// `ephemeral` is for known-answer tests; normal callers leave it nil for a fresh key pair.
    func encap(publicKey pkR: [UInt8], ephemeral: HPKEKeyPair? = nil) throws(CryptoError) -> (sharedSecret: [UInt8], enc: [UInt8]) {
        if self == .xwing {
            // X-Wing's randomness is a 64-byte seed, not a key pair: known-answer tests use
            // XWing.encapsulate(publicKey:seed:) and HPKE.keySchedule directly.
            guard ephemeral == nil else { throw .invalidParameter("X-Wing takes no ephemeral key pair") }
            let (sharedSecret, ciphertext) = try XWing.encapsulate(publicKey: pkR)
            return (sharedSecret, ciphertext)
        }
        let pair: HPKEKeyPair
        if let ephemeral { pair = ephemeral } else { pair = try generateKeyPair() }
        let dh = try dh(privateKey: pair.privateKey, publicKey: pkR)
        let enc = pair.publicKey
        return (try extractAndExpand(dh: dh, kemContext: enc + pkR), enc)
    }

    func decap(enc: [UInt8], privateKey skR: [UInt8]) throws(CryptoError) -> [UInt8] {
        if self == .xwing { return try XWing.decapsulate(privateKey: skR, ciphertext: enc) }
        let dh = try dh(privateKey: skR, publicKey: enc)
        let pkRm = try publicKey(privateKey: skR)
        return try extractAndExpand(dh: dh, kemContext: enc + pkRm)
    }

    func extractAndExpand(dh: [UInt8], kemContext: [UInt8]) throws(CryptoError) -> [UInt8] {
        let eaePRK = try labels.extract(salt: [], label: "eae_prk", ikm: dh)
        return try labels.expand(prk: eaePRK, label: "shared_secret", info: kemContext, length: nSecret)
    }
}

/// HPKE's LabeledExtract and LabeledExpand for one suite_id (RFC 9180 §4).
struct HPKELabels: Sendable {
    let suiteID: [UInt8]
    let hash: HashAlgorithm

    func extract(salt: [UInt8], label: String, ikm: [UInt8]) throws(CryptoError) -> [UInt8] {
        try HKDF.extract(salt: salt, ikm: Array("HPKE-v1".utf8) + suiteID + Array(label.utf8) + ikm, hash: hash)
    }

    func expand(prk: [UInt8], label: String, info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        guard length >= 0, length <= 0xffff else { throw .invalidParameter("LabeledExpand length") }
        let labeledInfo = i2osp(UInt16(length)) + Array("HPKE-v1".utf8) + suiteID + Array(label.utf8) + info
        return try HKDF.expand(prk: prk, info: labeledInfo, length: length, hash: hash)
    }
}

func i2osp(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }
