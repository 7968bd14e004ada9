import COpenSSL

/// Private keys from PEM files (an APNs `.p8` key, a VAPID key, a service account's RSA key):
/// PKCS#8 `PRIVATE KEY`, SEC1 `EC PRIVATE KEY` or PKCS#1 `RSA PRIVATE KEY`. Encrypted keys are refused.
public enum PEMPrivateKey {
    /// An ECDSA key on `curve`; `invalidKey` for anything else (another curve, RSA, garbage).
    public static func ecdsa(pem: [UInt8], curve: ECCurve) throws(CryptoError) -> ECDSAPrivateKey {
        let key = try read(pem)
        guard EVP_PKEY_get_base_id(key.pointer) == EVP_PKEY_EC else { throw .invalidKey }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(key.pointer, copenssl_PKEY_PARAM_GROUP_NAME(), &name, name.count, &length) == 1,
              let expected = OBJ_nid2sn(curve.nid), String(cString: expected) == String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        else {
            OpenSSL.clearErrors()
            throw .invalidKey
        }
        var scalar: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key.pointer, copenssl_PKEY_PARAM_PRIV_KEY(), &scalar) == 1, let scalar else {
            OpenSSL.clearErrors()
            throw .invalidKey
        }
        let value = BigNumber(takingSecret: scalar)
        guard let bytes = value.bytes(padded: curve.scalarSize) else { throw .invalidKey }
        return try ECDSAPrivateKey(curve: curve, scalar: bytes)
    }

    static func read(_ pem: [UInt8]) throws(CryptoError) -> PKeyHandle {
        guard !pem.isEmpty, pem.count < 1 << 20 else { throw .invalidKey }
        let key = pem.withUnsafeBufferPointer { copenssl_private_key_from_pem($0.baseAddress, Int32($0.count)) }
        guard let key else {
            OpenSSL.clearErrors()
            throw .invalidKey
        }
        return PKeyHandle(key)
    }
}

/// An RSA signing key for RS256 (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3): a Google service
/// account's key for the OAuth 2.0 JWT bearer grant. At least 2048 bits.
public struct RSAPrivateKey: Sendable {
    let key: PKeyHandle

    public init(pem: [UInt8]) throws(CryptoError) {
        let key = try PEMPrivateKey.read(pem)
        guard EVP_PKEY_get_base_id(key.pointer) == EVP_PKEY_RSA, EVP_PKEY_get_bits(key.pointer) >= 2048 else {
            throw .invalidKey
        }
        self.key = key
    }

    /// The key's size in bytes, which is the signature's.
    public var size: Int { Int(EVP_PKEY_get_size(key.pointer)) }

    /// RSASSA-PKCS1-v1_5 over SHA-256(`message`) (RFC 8017 §8.2).
    public func signatureSHA256(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, HashAlgorithm.sha256.evpMD, nil, key.pointer) == 1 else {
            throw OpenSSL.failure("EVP_DigestSignInit")
        }
        var out = [UInt8](repeating: 0, count: size)
        var length = out.count
        let ok = message.withNonNullBuffer { data, count in
            out.withUnsafeMutableBufferPointer { EVP_DigestSign(context, $0.baseAddress, &length, data, count) }
        }
        guard ok == 1 else { throw OpenSSL.failure("EVP_DigestSign") }
        return Array(out.prefix(length))
    }

    /// Whether `signature` is this key's RS256 signature of `message` (the public half's check).
    public func isValidSignatureSHA256(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            OpenSSL.clearErrors()
        }
        guard EVP_DigestVerifyInit(context, nil, HashAlgorithm.sha256.evpMD, nil, key.pointer) == 1 else { return false }
        return signature.withNonNullBuffer { signatureBytes, signatureCount in
            message.withNonNullBuffer { data, count in EVP_DigestVerify(context, signatureBytes, signatureCount, data, count) == 1 }
        }
    }
}
