import Foundation
import Primitives
import Synchronization

/// The APNs provider authentication token: an ES256 JWT whose header names the key (`kid`) and whose
/// claims are the team (`iss`) and the issue time (`iat`), signed with the `.p8` key ("Establishing
/// a token-based connection to APNs"). Apple refuses a token older than an hour
/// (ExpiredProviderToken) and one refreshed more often than every 20 minutes
/// (TooManyProviderTokenUpdates): one token is reused for every request, and replaced once it is
/// `refreshAge` old (50 minutes, inside that window).
public final class APNsProviderToken: Sendable {
    public static let minimumAge: Double = 20 * 60
    public static let maximumAge: Double = 60 * 60

    struct Header: Encodable {
        let alg = "ES256"
        let kid: String
    }

    struct Claims: Encodable {
        let iss: String
        let iat: Int64
    }

    public let keyID: String
    public let teamID: String
    private let key: ECDSAPrivateKey
    private let refreshAge: Double
    private let now: @Sendable () -> Double
    private let current = Mutex<(token: String, issuedAt: Double)?>(nil)

    /// - Parameter now: seconds since 1970 (tests pass their own clock).
    public init(key: ECDSAPrivateKey, keyID: String, teamID: String, refreshAge: Double = 50 * 60,
                now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        precondition(refreshAge >= Self.minimumAge && refreshAge < Self.maximumAge, "APNs wants 20 to 60 minutes")
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.refreshAge = refreshAge
        self.now = now
    }

    /// The token to send now: the current one, or a new one once the current one is `refreshAge` old.
    /// Checked and replaced under one lock: two requests at the turn never make two tokens.
    public func token() throws -> String {
        let time = now()
        return try current.withLock { current throws -> String in
            if let current, time - current.issuedAt < refreshAge, time >= current.issuedAt { return current.token }
            return try issue(at: time, into: &current)
        }
    }

    /// APNs answered ExpiredProviderToken for `token`: a new one, unless that token is younger than
    /// 20 minutes (then replacing it would only earn TooManyProviderTokenUpdates) or was replaced already.
    public func expired(_ token: String) throws -> String {
        let time = now()
        return try current.withLock { current throws -> String in
            guard let held = current, held.token == token, time - held.issuedAt >= Self.minimumAge else {
                if let held = current, time - held.issuedAt < refreshAge, time >= held.issuedAt { return held.token }
                return try issue(at: time, into: &current)
            }
            return try issue(at: time, into: &current)
        }
    }

    private func issue(at time: Double, into current: inout (token: String, issuedAt: Double)?) throws -> String {
        let issuedAt = time.rounded(.down)
        let token = try JSONWebToken.compact(header: Header(kid: keyID), claims: Claims(iss: teamID, iat: Int64(issuedAt)),
                                             sign: JSONWebToken.es256(key))
        current = (token, issuedAt)
        return token
    }
}
