import Basics
import Foundation
import Primitives

/// What AUTH.md's checks 1–8 came to from the cache alone.
public enum ServiceAuthOutcome: Sendable, Equatable {
    /// Checks 1–8 passed; check 9 (replay) is left to the caller.
    case verified(ReplayClaim)
    /// The issuer's signing key must be fetched first (`forced`: check 8's one refresh after a
    /// signature that the cached key does not verify): `DIDResolver.fetch`, then check again.
    case needsKey(DID, forced: Bool)
}

/// Verifies `Authorization: Bearer <jwt>` service-auth tokens, running AUTH.md's checks 1–9 in
/// order. Checks 1–6 are pure and run before any network I/O; `check` never touches the network
/// at all, and says when a key must be fetched first.
public final class ServiceAuthVerifier: Sendable {
    /// Longest `jti` accepted; real ones are 16–64 characters.
    public static let maxJTILength = 256

    private let configuration: ServiceAuthConfiguration
    private let resolver: DIDResolver
    private let replayStore: any ReplayStore
    private let clock: @Sendable () -> Date

    public init(configuration: ServiceAuthConfiguration, resolver: DIDResolver, replayStore: any ReplayStore,
                clock: @escaping @Sendable () -> Date = Date.init) {
        self.configuration = configuration
        self.resolver = resolver
        self.replayStore = replayStore
        self.clock = clock
    }

    /// Runs every check of AUTH.md in order; returns the verified caller DID.
    public func verify(authorization: String?, lexiconMethod nsid: String) throws(AuthError) -> DID {
        let claim = try verifyDeferringReplay(authorization: authorization, lexiconMethod: nsid)
        try record(claim)
        return claim.did
    }

    /// Check 9 on its own: remembers the pair until exp + skew, after which check 3 rejects the
    /// token anyway; a pair already remembered is a replay.
    public func record(_ claim: ReplayClaim) throws(AuthError) {
        let remembered: Bool
        do {
            remembered = try replayStore.remember(iss: claim.iss, jti: claim.jti, until: claim.until)
        } catch {
            throw .serviceUnavailable("replay store unavailable")
        }
        guard remembered else { throw .replayedToken }
    }

    /// Checks 1–8, waiting for the issuer's DID document when the cache does not have it (callers
    /// that may block: tests, tools); check 9 is left to the caller, who records the returned claim
    /// in the same transaction as the write the token authorises (one commit, one WAL flush for
    /// both), or with `ReplayStore.remember` if no such write happens.
    public func verifyDeferringReplay(authorization: String?, lexiconMethod nsid: String) throws(AuthError) -> ReplayClaim {
        // A miss, then check 8's forced refresh: two fetches at most, then the cache answers.
        for _ in 0..<3 {
            switch try check(authorization: authorization, lexiconMethod: nsid) {
            case .verified(let claim): return claim
            case .needsKey(let did, _): try resolver.fetchAndWait(did)
            }
        }
        throw DIDResolver.busy
    }

    /// Checks 1–8 from the key cache, never waiting on the network: the claim, or the DID whose
    /// document must be fetched before the token can be judged. Check 9 is left to the caller.
    public func check(authorization: String?, lexiconMethod nsid: String) throws(AuthError) -> ServiceAuthOutcome {
        let now = clock().timeIntervalSince1970

        // 1. Header present and well-formed.
        guard let authorization, !authorization.isEmpty else { throw .authenticationRequired("missing Authorization header") }
        let token = try Self.bearerToken(authorization)
        let jwt = try ServiceAuthJWT.parse(token)
        guard let jti = jwt.claims["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= Self.maxJTILength else {
            throw .badJwt("jti must be a non-empty string")
        }

        // 2. alg, typ, kid.
        let algorithm = try Self.checkHeader(jwt.header)

        // 3. exp, iat.
        guard let exp = jwt.claims["exp"]?.numberValue else { throw .badJwt("exp must be a number") }
        guard now <= exp + configuration.clockSkew else { throw .jwtExpired("token expired") }
        guard exp - now <= configuration.maxTokenLifetime + configuration.clockSkew else {
            throw .badJwt("token lifetime exceeds \(Int(configuration.maxTokenLifetime)) s")
        }
        if let iat = jwt.claims["iat"] {
            guard let issuedAt = iat.numberValue else { throw .badJwt("iat must be a number") }
            guard issuedAt <= now + configuration.clockSkew else { throw .badJwt("token issued in the future") }
        }
        if configuration.strictTokenPrefixes.contains(where: nsid.hasPrefix) {
            guard let issuedAt = jwt.claims["iat"]?.numberValue else { throw .badJwt("iat is required") }
            guard exp - issuedAt <= configuration.strictTokenLifetime else {
                throw .badJwt("token lifetime exceeds \(Int(configuration.strictTokenLifetime)) s")
            }
            if let sub = jwt.claims["sub"] {
                guard sub.stringValue == jwt.claims["iss"]?.stringValue else { throw .badJwt("sub must be the issuer") }
            }
        }

        // 4. aud: exact match against the configured set.
        guard let audience = jwt.claims["aud"]?.stringValue, configuration.audiences.contains(audience) else {
            throw .badJwtAudience("aud does not name this service")
        }

        // 5. lxm: required, exact.
        guard let lxm = jwt.claims["lxm"]?.stringValue else { throw .badJwtLexiconMethod("missing lxm") }
        guard !lxm.isEmpty, lxm == nsid else { throw .badJwtLexiconMethod("lxm does not match \(nsid)") }

        // 6. iss: a bare plc/web DID, checked before any network I/O.
        guard let iss = jwt.claims["iss"]?.stringValue else { throw .badJwtIss("missing iss") }
        let did: DID
        do { did = try DID(iss) } catch { throw .badJwtIss(error.reason) }

        // 7–8. Signature, with one rate-limited forced refresh on failure.
        if let fetch = try checkSignature(jwt, algorithm: algorithm, issuer: did) { return fetch }

        return .verified(ReplayClaim(did: did, jti: jti, until: Date(timeIntervalSince1970: exp + configuration.clockSkew)))
    }

    /// RFC 6750 §2.1: `Bearer` (case-insensitive scheme), one space, the token.
    static func bearerToken(_ authorization: String) throws(AuthError) -> String {
        // The scheme ends at the first space, found among the UTF-8 bytes: splitting the header by
        // Characters walked every grapheme of the token (about 1% of a sendMessage's instructions).
        let utf8 = authorization.utf8
        guard let space = utf8.firstIndex(of: UInt8(ascii: " ")),
              utf8[..<space].elementsEqual("bearer".utf8, by: { $0 | 0x20 == $1 })
        else {
            throw .authenticationRequired("Authorization must use the Bearer scheme")
        }
        let token = trimmingWhitespace(authorization[utf8.index(after: space)...])
        guard !token.isEmpty else { throw .badJwt("empty bearer token") }
        return token
    }

    /// `trimmingCharacters(in: .whitespaces)`, without Foundation's UTF-16 round trip (a fifth of
    /// a sendMessage's CPU) when there is nothing to trim: every character of that set is a tab, a
    /// space or non-ASCII, so text that starts and ends with printable ASCII is already trimmed.
    static func trimmingWhitespace(_ text: Substring) -> String {
        let utf8 = text.utf8
        if let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return String(text)
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    static func checkHeader(_ header: [String: JSONValue]) throws(AuthError) -> AtprotoSigningKey.Algorithm {
        guard let alg = header["alg"]?.stringValue, let algorithm = AtprotoSigningKey.Algorithm(rawValue: alg) else {
            throw .badJwt("alg must be ES256K or ES256")
        }
        if let typ = header["typ"] {
            guard let value = typ.stringValue?.lowercased() else { throw .badJwtType("typ must be a string") }
            // Access, refresh and DPoP tokens must never pass as service auth.
            guard value == "jwt" else { throw .badJwtType("typ \(value) is not accepted") }
        }
        if let kid = header["kid"] {
            guard kid.stringValue == "#atproto" else { throw .badJwt("kid must be #atproto") }
        }
        // RFC 7515 §4.1.11: we understand no extensions, so any crit is fatal.
        guard header["crit"] == nil else { throw .badJwt("crit is not supported") }
        return algorithm
    }

    /// Nil when the signature verifies with the cached key; the fetch to make first when there is
    /// no cached key, or when it does not verify and check 8's refresh is due.
    private func checkSignature(_ jwt: ServiceAuthJWT, algorithm: AtprotoSigningKey.Algorithm,
                                issuer did: DID) throws(AuthError) -> ServiceAuthOutcome? {
        // Raw r||s only; DER (70–72 bytes) and anything else fail before the network is touched.
        guard jwt.signature.count == 2 * algorithm.curve.scalarSize else {
            throw .badJwtSignature("signature must be \(2 * algorithm.curve.scalarSize)-byte r||s")
        }
        if configuration.requireLowS && !ECDSA.isLowS(raw: jwt.signature, curve: algorithm.curve) {
            throw .badJwtSignature("high-S signature")
        }
        let key: AtprotoSigningKey
        switch resolver.cachedKey(for: did) {
        case .key(let cached): key = cached
        case .failure(let error): throw error
        case .missing: return .needsKey(did, forced: false)
        }
        if Self.isValid(jwt, algorithm: algorithm, key: key) { return nil }
        // 8. The user may have rotated keys since we cached theirs: one refresh per DID and interval,
        // after which the token is checked again against whatever key the cache then holds.
        if resolver.claimForcedRefresh(did) { return .needsKey(did, forced: true) }
        throw .badJwtSignature("signature does not verify")
    }

    private static func isValid(_ jwt: ServiceAuthJWT, algorithm: AtprotoSigningKey.Algorithm, key: AtprotoSigningKey) -> Bool {
        key.algorithm == algorithm
            && key.publicKey.isValidSignature(raw: jwt.signature, for: jwt.signingInput, hash: .sha256)
    }
}
