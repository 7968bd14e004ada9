import ATProto
import Basics

/// How the router verifies service-auth tokens (AUTH.md): checks 1–8 from the key cache alone, the
/// fetch of a DID document the cache lacks (on the resolver's own threads, the request set aside
/// meanwhile), and check 9. Built from the verifier and its resolver; tests may supply their own.
public struct ServiceAuthChecks: Sendable {
    /// Checks 1–8, never waiting on the network.
    public var check: @Sendable (_ authorization: String?, _ nsid: String) throws(AuthError) -> ServiceAuthOutcome
    /// Fetches a DID document (or joins the fetch under way) and calls `then` once it ended.
    public var fetch: @Sendable (_ did: DID, _ forced: Bool, _ then: @escaping @Sendable () -> Void) -> DIDResolver.Admission
    /// Check 9: remembers the token; a token remembered already is a replay.
    public var record: @Sendable (ReplayClaim) throws(AuthError) -> Void

    public init(check: @escaping @Sendable (String?, String) throws(AuthError) -> ServiceAuthOutcome,
                fetch: @escaping @Sendable (DID, Bool, @escaping @Sendable () -> Void) -> DIDResolver.Admission,
                record: @escaping @Sendable (ReplayClaim) throws(AuthError) -> Void) {
        self.check = check
        self.fetch = fetch
        self.record = record
    }

    public init(verifier: ServiceAuthVerifier, resolver: DIDResolver) {
        self.init(check: { header, nsid throws(AuthError) in try verifier.check(authorization: header, lexiconMethod: nsid) },
                  fetch: { did, forced, then in resolver.fetch(did, forced: forced, then: then) },
                  record: { claim throws(AuthError) in try verifier.record(claim) })
    }
}
