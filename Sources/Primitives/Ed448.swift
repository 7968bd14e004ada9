import COpenSSL

/// An Ed448 verification key (RFC 8032, pure Ed448 with an empty context), through OpenSSL.
public struct Ed448PublicKey: Sendable {
    public static let size = 57
    public let bytes: [UInt8]
    let key: PKeyHandle

    public init(bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == Self.size else { throw .invalidKey }
        key = try OpenSSL.rawKey(type: EVP_PKEY_ED448, bytes: bytes, isPrivate: false)
        self.bytes = bytes
    }

    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == 114, let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            OpenSSL.clearErrors()
        }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key.pointer) == 1 else { return false }
        return signature.withNonNullBuffer { sig, sigCount in
            message.withNonNullBuffer { data, count in EVP_DigestVerify(context, sig, sigCount, data, count) == 1 }
        }
    }
}

/// An Ed448 signing key held as its 57-byte RFC 8032 private key.
public struct Ed448PrivateKey: Sendable {
    public static let seedSize = 57
    public let publicKey: Ed448PublicKey
    let key: PKeyHandle

    public init(seed: [UInt8]) throws(CryptoError) {
        guard seed.count == Self.seedSize else { throw .invalidKey }
        key = try OpenSSL.rawKey(type: EVP_PKEY_ED448, bytes: seed, isPrivate: true)
        publicKey = try Ed448PublicKey(bytes: OpenSSL.rawBytes(of: key, size: Ed448PublicKey.size, isPrivate: false))
    }

    public static func generate() throws(CryptoError) -> Ed448PrivateKey {
        try Ed448PrivateKey(seed: SecureRandom.bytes(seedSize))
    }

    public var seed: [UInt8] { (try? OpenSSL.rawBytes(of: key, size: Self.seedSize, isPrivate: true)) ?? [] }

    /// Deterministic (RFC 8032) signature, 114 bytes.
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, nil, nil, key.pointer) == 1 else { throw OpenSSL.failure("EVP_DigestSignInit") }
        var signature = [UInt8](repeating: 0, count: 114)
        var length = signature.count
        let ok = message.withNonNullBuffer { data, count in
            EVP_DigestSign(context, &signature, &length, data, count)
        }
        guard ok == 1, length == 114 else { throw OpenSSL.failure("EVP_DigestSign (Ed448)") }
        return signature
    }
}
