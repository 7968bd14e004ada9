import Primitives

/// HPKE base mode (RFC 9180 §5.1.1) over a DHKEM, HKDF and an AEAD; the only mode MLS uses.
public struct HPKE: Sendable {
    public let kem: KEM
    public let kdf: HashAlgorithm
    public let aead: AEADAlgorithm

    public init(kem: KEM, kdf: HashAlgorithm, aead: AEADAlgorithm) {
        self.kem = kem
        self.kdf = kdf
        self.aead = aead
    }

    /// RFC 9180 §7.2 KDF identifiers.
    var kdfID: UInt16 {
        switch kdf {
        case .sha256: 0x0001
        case .sha384: 0x0002
        case .sha512: 0x0003
        }
    }

    /// RFC 9180 §7.3 AEAD identifiers.
    var aeadID: UInt16 {
        switch aead {
        case .aes128GCM: 0x0001
        case .aes256GCM: 0x0002
        case .chacha20Poly1305: 0x0003
        }
    }

    /// suite_id = "HPKE" || I2OSP(kem_id, 2) || I2OSP(kdf_id, 2) || I2OSP(aead_id, 2).
    public var suiteID: [UInt8] { Array("HPKE".utf8) + i2osp(kem.rawValue) + i2osp(kdfID) + i2osp(aeadID) }

    var labels: HPKELabels { HPKELabels(suiteID: suiteID, hash: kdf) }

    public func setupBaseS(publicKey: [UInt8], info: [UInt8]) throws(CryptoError) -> (enc: [UInt8], context: HPKEContext) {
        try setupBaseS(publicKey: publicKey, info: info, ephemeral: nil)
    }

    func setupBaseS(
        publicKey: [UInt8], info: [UInt8], ephemeral: HPKEKeyPair?
    ) throws(CryptoError) -> (enc: [UInt8], context: HPKEContext) {
        let (sharedSecret, enc) = try kem.encap(publicKey: publicKey, ephemeral: ephemeral)
        return (enc, try keySchedule(sharedSecret: sharedSecret, info: info))
    }

    public func setupBaseR(enc: [UInt8], privateKey: [UInt8], info: [UInt8]) throws(CryptoError) -> HPKEContext {
        let sharedSecret = try kem.decap(enc: enc, privateKey: privateKey)
        return try keySchedule(sharedSecret: sharedSecret, info: info)
    }

    /// Single-shot SealBase (RFC 9180 §6.1).
    public func sealBase(
        publicKey: [UInt8], info: [UInt8], aad: [UInt8], plaintext: [UInt8]
    ) throws(CryptoError) -> (enc: [UInt8], ciphertext: [UInt8]) {
        var (enc, context) = try setupBaseS(publicKey: publicKey, info: info)
        return (enc, try context.seal(aad: aad, plaintext: plaintext))
    }

    /// Single-shot OpenBase; any failure to decapsulate or authenticate throws.
    public func openBase(
        enc: [UInt8], privateKey: [UInt8], info: [UInt8], aad: [UInt8], ciphertext: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        var context = try setupBaseR(enc: enc, privateKey: privateKey, info: info)
        return try context.open(aad: aad, ciphertext: ciphertext)
    }

    /// Single-shot SealBase with an info prepared once for many recipients.
    func sealBase(
        publicKey: [UInt8], prepared: HPKEPreparedInfo, aad: [UInt8], plaintext: [UInt8]
    ) throws(CryptoError) -> (enc: [UInt8], ciphertext: [UInt8]) {
        let (sharedSecret, enc) = try kem.encap(publicKey: publicKey, ephemeral: nil)
        var context = try keySchedule(sharedSecret: sharedSecret, prepared: prepared)
        return (enc, try context.seal(aad: aad, plaintext: plaintext))
    }

    /// The part of the key schedule that depends on `info` alone (RFC 9180 §5.1).
    func prepare(info: [UInt8]) throws(CryptoError) -> HPKEPreparedInfo {
        let labels = self.labels
        let pskIDHash = try labels.extract(salt: [], label: "psk_id_hash", ikm: [])
        let infoHash = try labels.extract(salt: [], label: "info_hash", ikm: info)
        return HPKEPreparedInfo(labels: labels, keyScheduleContext: [UInt8(0x00)] + pskIDHash + infoHash)
    }

    /// KeySchedule with mode_base, empty psk and psk_id (RFC 9180 §5.1). Public for known-answer
    /// tests of KEMs whose encapsulation randomness is not a key pair (X-Wing).
    public func keySchedule(sharedSecret: [UInt8], info: [UInt8]) throws(CryptoError) -> HPKEContext {
        try keySchedule(sharedSecret: sharedSecret, prepared: prepare(info: info))
    }

    func keySchedule(sharedSecret: [UInt8], prepared: HPKEPreparedInfo) throws(CryptoError) -> HPKEContext {
        let labels = prepared.labels
        let context = prepared.keyScheduleContext
        let secret = try labels.extract(salt: sharedSecret, label: "secret", ikm: [])
        return HPKEContext(
            aead: aead, labels: labels,
            key: try labels.expand(prk: secret, label: "key", info: context, length: aead.keySize),
            baseNonce: try labels.expand(prk: secret, label: "base_nonce", info: context, length: aead.nonceSize),
            exporterSecret: try labels.expand(prk: secret, label: "exp", info: context, length: kdf.outputSize))
    }
}

/// key_schedule_context for one info (RFC 9180 §5.1): info_hash is the same for every recipient of
/// that info, so a sender sealing to many keys (a Welcome with a ratchet tree) hashes it once.
struct HPKEPreparedInfo: Sendable {
    let labels: HPKELabels
    let keyScheduleContext: [UInt8]
}

/// An HPKE encryption context (RFC 9180 §5.2). Each seal or open advances the sequence number.
public struct HPKEContext: Sendable {
    let aead: AEADAlgorithm
    let labels: HPKELabels
    let key: [UInt8]
    let baseNonce: [UInt8]
    let exporterSecret: [UInt8]
    public private(set) var sequence: UInt64 = 0

    init(aead: AEADAlgorithm, labels: HPKELabels, key: [UInt8], baseNonce: [UInt8], exporterSecret: [UInt8]) {
        self.aead = aead
        self.labels = labels
        self.key = key
        self.baseNonce = baseNonce
        self.exporterSecret = exporterSecret
    }

    /// base_nonce XOR I2OSP(seq, Nn).
    func nonce() -> [UInt8] {
        var nonce = baseNonce
        for i in 0..<8 { nonce[nonce.count - 1 - i] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(i))) }
        return nonce
    }

    mutating func advance() throws(CryptoError) {
        guard sequence < UInt64.max else { throw .invalidParameter("HPKE message limit reached") }
        sequence += 1
    }

    public mutating func seal(aad: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        let ciphertext = try aead.seal(key: key, nonce: nonce(), plaintext: plaintext, authenticating: aad)
        try advance()
        return ciphertext
    }

    public mutating func open(aad: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        let plaintext = try aead.open(key: key, nonce: nonce(), ciphertext: ciphertext, authenticating: aad)
        try advance()
        return plaintext
    }

    /// Secret export (RFC 9180 §5.3).
    public func export(exporterContext: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        try labels.expand(prk: exporterSecret, label: "sec", info: exporterContext, length: length)
    }
}
