/// A failed service-auth check, carrying the XRPC error name from AUTH.md. Every authentication
/// failure is a 401 with `WWW-Authenticate: Bearer`; only `ServiceUnavailable` (the replay store
/// could not be reached, so the token can be neither accepted nor blamed) is a 503.
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var status: Int { name == Self.serviceUnavailable ? 503 : 401 }
    /// The challenge to send with a 401 (RFC 6750 §3).
    public var wwwAuthenticate: String? { status == 401 ? "Bearer" : nil }
    public var description: String { "\(name): \(message)" }

    public static let authenticationRequired = "AuthenticationRequired"
    public static let badJwt = "BadJwt"
    public static let badJwtType = "BadJwtType"
    public static let jwtExpired = "JwtExpired"
    public static let badJwtAudience = "BadJwtAudience"
    public static let badJwtLexiconMethod = "BadJwtLexiconMethod"
    public static let badJwtIss = "BadJwtIss"
    public static let badJwtSignature = "BadJwtSignature"
    public static let serviceUnavailable = "ServiceUnavailable"

    static func authenticationRequired(_ message: String) -> AuthError { AuthError(name: authenticationRequired, message: message) }
    static func badJwt(_ message: String) -> AuthError { AuthError(name: badJwt, message: message) }
    static func badJwtType(_ message: String) -> AuthError { AuthError(name: badJwtType, message: message) }
    static func jwtExpired(_ message: String) -> AuthError { AuthError(name: jwtExpired, message: message) }
    static func badJwtAudience(_ message: String) -> AuthError { AuthError(name: badJwtAudience, message: message) }
    static func badJwtLexiconMethod(_ message: String) -> AuthError { AuthError(name: badJwtLexiconMethod, message: message) }
    static func badJwtIss(_ message: String) -> AuthError { AuthError(name: badJwtIss, message: message) }
    static func badJwtSignature(_ message: String) -> AuthError { AuthError(name: badJwtSignature, message: message) }
    static func serviceUnavailable(_ message: String) -> AuthError { AuthError(name: serviceUnavailable, message: message) }
    /// Check 9's refusal, also raised where the check runs in a write's own transaction.
    public static let replayedToken = badJwt("replayed token")
}
