import COpenSSL

/// An ECDSA verification key on one of the `ECCurve`s.
public struct ECDSAPublicKey: Sendable {
    public let curve: ECCurve
    /// SEC1 uncompressed: 0x04 || x || y.
    public let uncompressed: [UInt8]
    let key: PKeyHandle
    /// secp256k1 only: the key's own precomputation, built once it verifies a second time.
    let secp256k1Tables: Secp256k1.KeyTablesCache?

    /// Accepts compressed or uncompressed SEC1; rejects points off the curve and the point at infinity.
    public init(curve: ECCurve, sec1 bytes: [UInt8]) throws(CryptoError) {
        let point = try ECArithmetic.uncompressedPoint(curve: curve, sec1: bytes)
        try self.init(curve: curve, validatedUncompressed: point)
    }

    init(curve: ECCurve, validatedUncompressed point: [UInt8]) throws(CryptoError) {
        self.curve = curve
        uncompressed = point
        key = try ECArithmetic.makeKey(curve: curve, uncompressed: point, scalar: nil)
        secp256k1Tables = curve == .secp256k1 ? Secp256k1.KeyTablesCache() : nil
    }

    /// SEC1 compressed: 0x02/0x03 || x.
    public var compressed: [UInt8] { ECArithmetic.compress(curve: curve, uncompressed: uncompressed) }

    /// Checks an r||s signature (each `curve.scalarSize` bytes) over `hash(message)`. High-S signatures
    /// verify; callers that require low S check `ECDSA.isLowS` as well.
    /// secp256k1 runs natively (OpenSSL 3.0 has no fast path for it); the other curves use OpenSSL.
    public func isValidSignature(raw rs: [UInt8], for message: [UInt8], hash: HashAlgorithm) -> Bool {
        guard curve == .secp256k1 else { return openSSLIsValidSignature(raw: rs, for: message, hash: hash) }
        return Secp256k1.isValidSignature(raw: rs, digest: hash.hash(message), uncompressedKey: uncompressed,
                                          tables: secp256k1Tables)
    }

    /// Checks a DER `ECDSA-Sig-Value` over `hash(message)`; non-canonical DER is rejected, as OpenSSL does.
    public func isValidSignature(der: [UInt8], for message: [UInt8], hash: HashAlgorithm) -> Bool {
        guard curve == .secp256k1 else { return openSSLIsValidSignature(der: der, for: message, hash: hash) }
        // OpenSSL accepts only DER that re-encodes to the same bytes.
        guard let rs = try? ECDSA.raw(fromDER: der, curve: curve),
              (try? ECDSA.der(fromRaw: rs, curve: curve)) == der else { return false }
        return Secp256k1.isValidSignature(raw: rs, digest: hash.hash(message), uncompressedKey: uncompressed,
                                          tables: secp256k1Tables)
    }

    /// OpenSSL's verdict on every curve, which the native secp256k1 path is tested against.
    func openSSLIsValidSignature(raw rs: [UInt8], for message: [UInt8], hash: HashAlgorithm) -> Bool {
        guard let der = try? ECDSA.der(fromRaw: rs, curve: curve) else { return false }
        return ECDSA.verify(key: key, der: der, message: message, hash: hash)
    }

    func openSSLIsValidSignature(der: [UInt8], for message: [UInt8], hash: HashAlgorithm) -> Bool {
        ECDSA.verify(key: key, der: der, message: message, hash: hash)
    }
}

/// An ECDSA signing key. The scalar is cleared from OpenSSL's memory when the key is freed.
public struct ECDSAPrivateKey: Sendable {
    public let publicKey: ECDSAPublicKey
    private let secret: SecretBytes
    let key: PKeyHandle

    public var curve: ECCurve { publicKey.curve }
    /// The big-endian scalar, `curve.scalarSize` bytes.
    public var scalar: [UInt8] { secret.bytes }

    /// A big-endian scalar in [1, n-1]; shorter input is left-padded (P-521 keys come as 65 or 66 bytes).
    public init(curve: ECCurve, scalar: [UInt8]) throws(CryptoError) {
        let normalized = try ECArithmetic.normalizedScalar(curve: curve, scalar)
        let point = try ECArithmetic.publicPoint(curve: curve, scalar: normalized)
        publicKey = try ECDSAPublicKey(curve: curve, validatedUncompressed: point)
        key = try ECArithmetic.makeKey(curve: curve, uncompressed: point, scalar: normalized)
        secret = SecretBytes(normalized)
    }

    public static func generate(curve: ECCurve) throws(CryptoError) -> ECDSAPrivateKey {
        // Rejection sampling: the chance of an out-of-range draw is below 2^-32 for every curve here.
        for _ in 0..<64 {
            var candidate = SecureRandom.bytes(curve.scalarSize)
            if curve == .p521 { candidate[0] &= 0x01 }
            if let key = try? ECDSAPrivateKey(curve: curve, scalar: candidate) { return key }
        }
        throw .internal("ECDSA key generation found no valid scalar")
    }

    /// Signs `hash(message)`; returns r||s and DER. With `lowS` (the default), s is normalised to ≤ n/2.
    public func signature(
        for message: [UInt8], hash: HashAlgorithm, lowS: Bool = true
    ) throws(CryptoError) -> (raw: [UInt8], der: [UInt8]) {
        let der = try ECDSA.sign(key: key, message: message, hash: hash)
        var raw = try ECDSA.raw(fromDER: der, curve: curve)
        guard lowS, !ECDSA.isLowS(raw: raw, curve: curve) else { return (raw, der) }
        raw = try ECDSA.normalizeLowS(raw: raw, curve: curve)
        return (raw, try ECDSA.der(fromRaw: raw, curve: curve))
    }
}
