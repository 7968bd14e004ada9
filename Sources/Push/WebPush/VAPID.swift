import Foundation
import Primitives
import Synchronization

/// Voluntary Application Server Identification (RFC 8292): every Web Push request carries an ES256
/// JWT naming the push resource's origin (`aud`), an expiry within a day (`exp`) and a contact
/// (`sub`), and the public key it verifies with. A push service may tie subscriptions to that key.
public final class VAPID: Sendable {
    struct Header: Encodable {
        let typ = "JWT"
        let alg = "ES256"
    }

    struct Claims: Encodable {
        let aud: String
        let exp: Int64
        let sub: String
    }

    /// How long a token is valid (RFC 8292 §2: at most 24 hours), and how long before its end it is replaced.
    static let lifetime: Double = 12 * 3600
    static let renewBefore: Double = 3600
    /// Origins whose token is kept; past it the cache starts over (endpoints are the clients' choice).
    static let maxCached = 256

    /// `mailto:` or `https:` contact for the push service's operators (VAPID_SUBJECT).
    public let subject: String
    /// The application server key browsers subscribe with: uncompressed P-256, base64url.
    public let publicKey: String
    private let key: ECDSAPrivateKey
    private let now: @Sendable () -> Double
    private let cache = Mutex<[String: (header: String, expires: Double)]>([:])

    public init(key: ECDSAPrivateKey, subject: String, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        precondition(key.curve == .p256, "VAPID keys are P-256")
        self.key = key
        self.subject = subject
        publicKey = Base64URLText.encode(key.publicKey.uncompressed)
        self.now = now
    }

    /// The `Authorization` header value for a push resource of `origin` (`https://host[:port]`):
    /// `vapid t=<token>,k=<key>` (RFC 8292 §3).
    public func authorization(origin: String) throws -> String {
        let time = now()
        if let cached = cache.withLock({ $0[origin] }), cached.expires - time > Self.renewBefore { return cached.header }
        let expires = (time + Self.lifetime).rounded(.down)
        let token = try JSONWebToken.compact(header: Header(), claims: Claims(aud: origin, exp: Int64(expires), sub: subject),
                                             sign: JSONWebToken.es256(key))
        let header = "vapid t=\(token),k=\(publicKey)"
        cache.withLock { cache in
            if cache.count >= Self.maxCached { cache.removeAll() }
            cache[origin] = (header, expires)
        }
        return header
    }
}
