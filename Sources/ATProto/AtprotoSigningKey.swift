import Primitives

/// A user's atproto signing key: secp256k1 (JWT alg ES256K) or P-256 (ES256).
public struct AtprotoSigningKey: Sendable, Equatable, CustomStringConvertible {
    /// The JWS `alg` values AUTH.md allows, each bound to one curve (RFC 7518 §3.4, RFC 8812 §3.2).
    public enum Algorithm: String, Sendable, CaseIterable {
        case es256k = "ES256K"
        case es256 = "ES256"

        public var curve: ECCurve {
            switch self {
            case .es256k: .secp256k1
            case .es256: .p256
            }
        }
    }

    public let publicKey: ECDSAPublicKey
    public let algorithm: Algorithm

    /// Only secp256k1 and P-256 keys are atproto signing keys.
    public init?(publicKey: ECDSAPublicKey) {
        switch publicKey.curve {
        case .secp256k1: algorithm = .es256k
        case .p256: algorithm = .es256
        default: return nil
        }
        self.publicKey = publicKey
    }

    public var curve: ECCurve { publicKey.curve }
    public var multikey: String { Multikey.encode(publicKey: publicKey) }
    public var description: String { multikey }

    public static func == (lhs: AtprotoSigningKey, rhs: AtprotoSigningKey) -> Bool {
        lhs.curve == rhs.curve && lhs.publicKey.uncompressed == rhs.publicKey.uncompressed
    }
}
