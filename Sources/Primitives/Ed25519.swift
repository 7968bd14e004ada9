import CSodium

/// An Ed25519 verification key (RFC 8032), checked by libsodium.
public struct Ed25519PublicKey: Sendable, Equatable {
    public static let size = 32
    public let bytes: [UInt8]

    /// Rejects keys of the wrong size, non-canonical encodings and small-order points.
    public init(bytes: [UInt8]) throws(CryptoError) {
        Sodium.ensureInitialized()
        guard bytes.count == Self.size, crypto_core_ed25519_is_valid_point(bytes) == 1 else { throw .invalidKey }
        self.bytes = bytes
    }

    /// Size check only, for a key that is only used to verify: libsodium's verification itself
    /// refuses non-canonical and small-order keys, so the separate full point check (as costly as a
    /// verification) is not repeated on every signature a group checks.
    public init(verifyingBytes bytes: [UInt8]) throws(CryptoError) {
        Sodium.ensureInitialized()
        guard bytes.count == Self.size else { throw .invalidKey }
        self.bytes = bytes
    }

    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == 64 else { return false }
        return message.withNonNullBuffer { data, count in
            crypto_sign_verify_detached(signature, data, UInt64(count), bytes) == 0
        }
    }
}

/// An Ed25519 signing key held as its 32-byte seed (the RFC 8032 private key).
public struct Ed25519PrivateKey: Sendable {
    public static let seedSize = 32
    public let publicKey: Ed25519PublicKey
    /// libsodium's 64-byte secret key: seed || public key.
    private let expanded: SecretBytes

    public init(seed: [UInt8]) throws(CryptoError) {
        Sodium.ensureInitialized()
        guard seed.count == Self.seedSize else { throw .invalidKey }
        var publicBytes = [UInt8](repeating: 0, count: 32)
        var secret = [UInt8](repeating: 0, count: 64)
        guard crypto_sign_seed_keypair(&publicBytes, &secret, seed) == 0 else {
            throw .internal("crypto_sign_seed_keypair failed")
        }
        publicKey = try Ed25519PublicKey(bytes: publicBytes)
        expanded = SecretBytes(secret)
        ConstantTime.wipe(&secret)
    }

    public static func generate() throws(CryptoError) -> Ed25519PrivateKey {
        try Ed25519PrivateKey(seed: SecureRandom.bytes(seedSize))
    }

    public var seed: [UInt8] { Array(expanded.bytes.prefix(Self.seedSize)) }

    /// Deterministic (RFC 8032) signature, 64 bytes.
    public func signature(for message: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 64)
        let secret = expanded.bytes
        _ = message.withNonNullBuffer { data, count in
            crypto_sign_detached(&signature, nil, data, UInt64(count), secret)
        }
        return signature
    }
}
