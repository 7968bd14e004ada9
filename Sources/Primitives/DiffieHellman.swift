import COpenSSL
import CSodium

/// X25519 (RFC 7748) through libsodium.
public enum X25519 {
    public static let keySize = 32

    public static func publicKey(privateKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        Sodium.ensureInitialized()
        guard privateKey.count == keySize else { throw .invalidKey }
        var out = [UInt8](repeating: 0, count: keySize)
        guard crypto_scalarmult_base(&out, privateKey) == 0 else { throw .invalidKey }
        return out
    }

    /// Rejects an all-zero result (a small-order peer key), as RFC 7748 §6.1 and RFC 9180 §7.1.4 require.
    public static func sharedSecret(privateKey: [UInt8], publicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        Sodium.ensureInitialized()
        guard privateKey.count == keySize, publicKey.count == keySize else { throw .invalidKey }
        var out = [UInt8](repeating: 0, count: keySize)
        guard crypto_scalarmult(&out, privateKey, publicKey) == 0 else { throw .invalidSharedSecret }
        return out
    }

    /// A key any peer can use: 32 bytes and not of small order (RFC 7748 §6.1), so that a DH with
    /// it never yields the all-zero secret that `sharedSecret` (RFC 9180 §7.1.4) refuses. Every
    /// clamped scalar is a multiple of the cofactor, so one multiplication by a fixed scalar tells.
    public static func isValidPublicKey(_ publicKey: [UInt8]) -> Bool {
        (try? sharedSecret(privateKey: validationScalar, publicKey: publicKey)) != nil
    }

    static let validationScalar = [UInt8](repeating: 0x5a, count: keySize)
}

/// X448 (RFC 7748) through OpenSSL; libsodium has no X448.
public enum X448 {
    public static let keySize = 56

    public static func publicKey(privateKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard privateKey.count == keySize else { throw .invalidKey }
        let key = try OpenSSL.rawKey(type: EVP_PKEY_X448, bytes: privateKey, isPrivate: true)
        return try OpenSSL.rawBytes(of: key, size: keySize, isPrivate: false)
    }

    public static func sharedSecret(privateKey: [UInt8], publicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard privateKey.count == keySize, publicKey.count == keySize else { throw .invalidKey }
        let mine = try OpenSSL.rawKey(type: EVP_PKEY_X448, bytes: privateKey, isPrivate: true)
        let peer = try OpenSSL.rawKey(type: EVP_PKEY_X448, bytes: publicKey, isPrivate: false)
        let secret = try OpenSSL.derive(privateKey: mine, peer: peer)
        guard secret.count == keySize, secret.contains(where: { $0 != 0 }) else { throw .invalidSharedSecret }
        return secret
    }

    /// 56 bytes and not of small order (RFC 7748 §6.2), as `X25519.isValidPublicKey`.
    public static func isValidPublicKey(_ publicKey: [UInt8]) -> Bool {
        (try? sharedSecret(privateKey: validationScalar, publicKey: publicKey)) != nil
    }

    static let validationScalar = [UInt8](repeating: 0x5a, count: keySize)
}

/// ECDH on the NIST curves (SEC 1 §3.3.1): the shared secret is the x coordinate, `scalarSize` bytes.
public enum ECDH {
    /// The uncompressed public point for a private scalar (left-padded; must be in [1, n-1]).
    public static func publicKey(curve: ECCurve, privateKey scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        let normalized = try ECArithmetic.normalizedScalar(curve: curve, scalar)
        return try ECArithmetic.publicPoint(curve: curve, scalar: normalized)
    }

    /// True when `scalar` is a valid private key: exactly `scalarSize` bytes, in [1, n-1].
    public static func isValidPrivateKey(curve: ECCurve, _ scalar: [UInt8]) -> Bool {
        guard scalar.count == curve.scalarSize else { return false }
        return (try? ECArithmetic.isValidScalar(curve: curve, scalar)) ?? false
    }

    /// True for an uncompressed SEC1 point on the curve (SEC 1 §3.2.2.1), the only form HPKE
    /// serializes (RFC 9180 §7.1.1).
    public static func isValidUncompressedPublicKey(curve: ECCurve, _ publicKey: [UInt8]) -> Bool {
        guard publicKey.count == curve.uncompressedSize, publicKey.first == 0x04 else { return false }
        return (try? ECArithmetic.uncompressedPoint(curve: curve, sec1: publicKey)) != nil
    }

    /// `publicKey` may be compressed or uncompressed SEC1; it is validated before use.
    public static func sharedSecret(curve: ECCurve, privateKey scalar: [UInt8], publicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        let normalized = try ECArithmetic.normalizedScalar(curve: curve, scalar)
        let point = try ECArithmetic.uncompressedPoint(curve: curve, sec1: publicKey)
        let mine = try ECArithmetic.makeKey(curve: curve, uncompressed: nil, scalar: normalized)
        let peer = try ECArithmetic.makeKey(curve: curve, uncompressed: point, scalar: nil)
        let secret = try OpenSSL.derive(privateKey: mine, peer: peer)
        guard secret.count == curve.scalarSize else { throw .invalidSharedSecret }
        return secret
    }
}
