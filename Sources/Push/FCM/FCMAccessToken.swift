import Foundation
import HTTP
import JSON

/// The OAuth 2.0 access token FCM HTTP v1 wants as a Bearer, obtained with the JWT bearer grant
/// (RFC 7523 §2.1): a JWT signed with the service account's key (RS256) is exchanged at the token
/// endpoint for a token valid about an hour, which is reused until a minute before it expires.
/// One fetch at a time: concurrent senders wait for it rather than each fetching.
final class FCMAccessToken: @unchecked Sendable {
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// A token is replaced this long before its end, so that none expires in flight.
    static let margin: Double = 60

    struct Header: Encodable {
        let alg = "RS256"
        let typ = "JWT"
        let kid: String?
    }

    struct Claims: Encodable {
        let iss: String
        let scope: String
        let aud: String
        let iat: Int64
        let exp: Int64
    }

    struct Grant: Decodable {
        var access_token: String
        var expires_in: Double?
        var token_type: String?
    }

    enum Failure: Error, Equatable {
        /// The endpoint refused the grant (a bad key or account): retrying will not change it.
        case refused(status: Int)
        /// Try later: the network, a timeout, 429 or 5xx.
        case unavailable(String)
    }

    private let account: FCMServiceAccount
    /// The grant's endpoint and audience: the account's `token_uri`, or FCM_TOKEN_URL.
    private let tokenURL: String
    private let client: HTTPClient
    private let now: @Sendable () -> Double
    // Guarded by `lock`, which is held across a fetch so that there is one fetch at a time.
    private let lock = NSLock()
    private var current: (token: String, expires: Double)?

    init(account: FCMServiceAccount, tokenURL: String, client: HTTPClient,
         now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.account = account
        self.tokenURL = tokenURL
        self.client = client
        self.now = now
    }

    /// A token valid for at least the margin: the cached one, or a fresh one.
    func token() throws(Failure) -> String {
        lock.lock()
        defer { lock.unlock() }
        if let current, current.expires - now() > Self.margin { return current.token }
        return try fetch()
    }

    /// FCM refused `token` (401): forget it, so that the next `token()` fetches another.
    func invalidate(_ token: String) {
        lock.lock()
        defer { lock.unlock() }
        if current?.token == token { current = nil }
    }

    private func fetch() throws(Failure) -> String {
        let issued = now().rounded(.down)
        let assertion: String
        do {
            assertion = try JSONWebToken.compact(
                header: Header(kid: account.privateKeyID),
                claims: Claims(iss: account.clientEmail, scope: Self.scope, aud: tokenURL, iat: Int64(issued),
                               exp: Int64(issued) + 3600),
                sign: JSONWebToken.rs256(account.key))
        } catch {
            throw .refused(status: 0)
        }
        // application/x-www-form-urlencoded: the grant type's URN escaped; a JWT needs no escaping.
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let response: HTTPClientResponse
        do {
            response = try client.send(method: "POST", tokenURL,
                                       headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                                       body: Array(body.utf8))
        } catch {
            throw .unavailable("\(error)")
        }
        switch response.status {
        case 200..<300: break
        case 429, 500..<600: throw .unavailable("token endpoint answered \(response.status)")
        default: throw .refused(status: response.status)
        }
        guard let grant = try? StrictJSON.decode(Grant.self, from: response.body), !grant.access_token.isEmpty,
              grant.access_token.utf8.count <= 4096, grant.access_token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .unavailable("the token endpoint's answer holds no usable access_token")
        }
        let lifetime = min(max(grant.expires_in ?? 3600, 0), 86_400)
        current = (grant.access_token, issued + lifetime)
        return grant.access_token
    }
}
