import Primitives

/// The TLS SignatureScheme values MLS suites use (RFC 9420 §5.1.2). ECDSA signatures are DER over
/// the scheme's hash; EdDSA is pure and deterministic.
public enum SignatureScheme: UInt16, Sendable, CaseIterable {
    case ecdsaSecp256r1SHA256 = 0x0403
    case ecdsaSecp384r1SHA384 = 0x0503
    case ecdsaSecp521r1SHA512 = 0x0603
    case ed25519 = 0x0807
    case ed448 = 0x0808

    var ecdsa: (curve: ECCurve, hash: HashAlgorithm)? {
        switch self {
        case .ecdsaSecp256r1SHA256: (.p256, .sha256)
        case .ecdsaSecp384r1SHA384: (.p384, .sha384)
        case .ecdsaSecp521r1SHA512: (.p521, .sha512)
        case .ed25519, .ed448: nil
        }
    }

    public func generatePrivateKey() throws(CryptoError) -> SignaturePrivateKey {
        switch self {
        case .ed25519: SignaturePrivateKey(scheme: self, storage: .ed25519(try Ed25519PrivateKey.generate()))
        case .ed448: SignaturePrivateKey(scheme: self, storage: .ed448(try Ed448PrivateKey.generate()))
        default: SignaturePrivateKey(scheme: self, storage: .ecdsa(try ECDSAPrivateKey.generate(curve: ecdsa!.curve)))
        }
    }
}

/// A signature key in MLS's encoding: the raw 32/57-byte EdDSA public key, or an uncompressed SEC1
/// point for ECDSA.
public struct SignaturePublicKey: Sendable {
    enum Storage: Sendable {
        case ed25519(Ed25519PublicKey)
        case ed448(Ed448PublicKey)
        case ecdsa(ECDSAPublicKey)
    }

    public let scheme: SignatureScheme
    let storage: Storage

    /// Validates the encoding (size, and for ECDSA that the point is on the curve).
    public init(scheme: SignatureScheme, bytes: [UInt8]) throws(CryptoError) {
        self.scheme = scheme
        switch scheme {
        case .ed25519: storage = .ed25519(try Ed25519PublicKey(verifyingBytes: bytes))
        case .ed448: storage = .ed448(try Ed448PublicKey(bytes: bytes))
        default:
            let curve = scheme.ecdsa!.curve
            // MLS carries uncompressed points (RFC 9420 §5.1.2 refers to SEC1 uncompressed).
            guard bytes.count == curve.uncompressedSize else { throw .invalidKey }
            storage = .ecdsa(try ECDSAPublicKey(curve: curve, sec1: bytes))
        }
    }

    init(scheme: SignatureScheme, storage: Storage) {
        self.scheme = scheme
        self.storage = storage
    }

    public var bytes: [UInt8] {
        switch storage {
        case .ed25519(let key): key.bytes
        case .ed448(let key): key.bytes
        case .ecdsa(let key): key.uncompressed
        }
    }

    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch storage {
        case .ed25519(let key): key.isValidSignature(signature, for: message)
        case .ed448(let key): key.isValidSignature(signature, for: message)
        case .ecdsa(let key): key.isValidSignature(der: signature, for: message, hash: scheme.ecdsa!.hash)
        }
    }
}

/// A signing key: the EdDSA private key (32 or 57 bytes) or the big-endian ECDSA scalar.
public struct SignaturePrivateKey: Sendable {
    enum Storage: Sendable {
        case ed25519(Ed25519PrivateKey)
        case ed448(Ed448PrivateKey)
        case ecdsa(ECDSAPrivateKey)
    }

    public let scheme: SignatureScheme
    let storage: Storage

    public init(scheme: SignatureScheme, bytes: [UInt8]) throws(CryptoError) {
        self.scheme = scheme
        switch scheme {
        case .ed25519: storage = .ed25519(try Ed25519PrivateKey(seed: bytes))
        case .ed448: storage = .ed448(try Ed448PrivateKey(seed: bytes))
        default: storage = .ecdsa(try ECDSAPrivateKey(curve: scheme.ecdsa!.curve, scalar: bytes))
        }
    }

    init(scheme: SignatureScheme, storage: Storage) {
        self.scheme = scheme
        self.storage = storage
    }

    public var bytes: [UInt8] {
        switch storage {
        case .ed25519(let key): key.seed
        case .ed448(let key): key.seed
        case .ecdsa(let key): key.scalar
        }
    }

    public var publicKey: SignaturePublicKey {
        switch storage {
        case .ed25519(let key): SignaturePublicKey(scheme: scheme, storage: .ed25519(key.publicKey))
        case .ed448(let key): SignaturePublicKey(scheme: scheme, storage: .ed448(key.publicKey))
        case .ecdsa(let key): SignaturePublicKey(scheme: scheme, storage: .ecdsa(key.publicKey))
        }
    }

    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        switch storage {
        case .ed25519(let key): key.signature(for: message)
        case .ed448(let key): try key.signature(for: message)
        case .ecdsa(let key): try key.signature(for: message, hash: scheme.ecdsa!.hash).der
        }
    }
}
