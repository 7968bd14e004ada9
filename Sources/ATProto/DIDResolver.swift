import Basics
import Foundation
import HTTP
import Synchronization

/// What the resolver keeps of a DID document: the atproto signing key and the account's PDS.
public struct ResolvedDID: Sendable, Equatable {
    public let signingKey: AtprotoSigningKey
    /// The `#atproto_pds` endpoint, without a trailing slash; nil when the document names none.
    public let pdsEndpoint: String?
}

/// Resolves a DID to its atproto signing key (AUTH.md "DID resolution"), with the per-DID cache
/// and the rate-limited forced refresh of check 8. Every failure is a `BadJwtSignature` (a 503
/// `ServiceUnavailable` when the resolver is too busy to try).
///
/// Fetches never run on the caller's thread: they run on the resolver's own few threads
/// (`maxFetches`, at most `maxFetchesPerHost` to one host), queued up to `maxQueuedFetches` and for
/// at most `resolutionTimeout` seconds, one fetch per DID at a time (`FetchPool`). The server asks
/// the cache (`cachedKey`, never blocks) and, when the document must be fetched first, sets the
/// request aside with `fetch(_:then:)` until the fetch ends; `signingKey(for:forceRefresh:)` waits
/// for it instead, for callers that may block (the CLI, tests, other fetch threads). The document's
/// PDS endpoint is kept with the key (`pdsEndpoint(for:)`).
public final class DIDResolver: @unchecked Sendable {
    /// What a request for a DID document came to.
    public enum Admission: Equatable, Sendable {
        /// A fetch was queued, or one already was: `then` runs once it ends.
        case started, joined
        /// The cache answers already (another fetch just ended): `then` is not called.
        case ready
        /// The queue is full: nothing will be fetched and `then` is not called.
        case refused
    }

    /// The cache's answer, without any network.
    enum CachedKey: Equatable {
        case key(AtprotoSigningKey)
        case failure(AuthError)
        case missing
    }

    public typealias Waiter = @Sendable () -> Void

    public let configuration: ServiceAuthConfiguration
    private let client: HTTPClient
    private let clock: @Sendable () -> Date
    /// Told why a fetch failed (name lookup, connect, TLS, status): for the log, never the caller.
    private let diagnostics: (@Sendable (_ did: DID, _ detail: String) -> Void)?
    private let cache: Mutex<ResolutionCache<DID, ResolvedDID, AuthError>>
    /// The PLC directory's host, the per-host cap's key for every did:plc.
    private let plcHost: String
    private let pool: FetchPool<DID>

    public static let busy = AuthError(name: AuthError.serviceUnavailable, message: "DID resolution is busy, retry later")

    public init(configuration: ServiceAuthConfiguration, clock: @escaping @Sendable () -> Date = Date.init,
                diagnostics: (@Sendable (_ did: DID, _ detail: String) -> Void)? = nil) {
        self.configuration = configuration
        self.clock = clock
        self.diagnostics = diagnostics
        client = HTTPClient(timeout: configuration.resolutionTimeout, maxBodySize: configuration.maxDocumentSize,
                            allowPrivateAddresses: configuration.allowPrivateAddresses)
        cache = Mutex(ResolutionCache(freshFor: configuration.keyFreshFor, hardExpiry: configuration.keyHardExpiry,
                                      negativeFor: configuration.negativeCacheFor, transientFor: configuration.transientFailureCacheFor,
                                      forcedRefreshInterval: configuration.forcedRefreshInterval,
                                      capacity: configuration.maxCachedDIDs))
        pool = FetchPool(name: "did-resolver", maxQueued: configuration.maxQueuedFetches, maxRunning: configuration.maxFetches,
                         maxPerHost: configuration.maxFetchesPerHost, maxWait: configuration.resolutionTimeout, clock: clock)
        plcHost = URLComponents(string: configuration.plcURL)?.host?.lowercased() ?? configuration.plcURL
        pool.perform { [weak self] did in self?.resolve(did) }
    }

    // MARK: The cache

    /// The cached answer for `did`. A stale key is served as it is while a refresh is queued behind
    /// it (no caller waits for a key it holds), unless that refresh failed a moment ago.
    func cachedKey(for did: DID) -> CachedKey {
        switch cachedDocument(for: did) {
        case .success(let resolved?): .key(resolved.signingKey)
        case .success(nil): .missing
        case .failure(let error): .failure(error)
        }
    }

    /// The cached document of `did` (nil: not cached), refreshing a stale one behind the answer.
    private func cachedDocument(for did: DID) -> Result<ResolvedDID?, AuthError> {
        switch cache.withLock({ $0.lookup(did, now: clock()) }) {
        case .fresh(let resolved):
            return .success(resolved)
        case .stale(let resolved, let refreshDue):
            if refreshDue { _ = request(did, waiter: nil) }
            return .success(resolved)
        case .negative(let error):
            return .failure(error)
        case .miss:
            return .success(nil)
        }
    }

    /// Claims the DID's forced refresh (AUTH.md check 8): false while the last one is less than
    /// `forcedRefreshInterval` old.
    func claimForcedRefresh(_ did: DID) -> Bool {
        let now = clock()
        return cache.withLock { $0.claimForcedRefresh(did, now: now) }
    }

    // MARK: Fetching

    /// Fetches `did`'s document on the resolver's threads (or joins the fetch already under way)
    /// and calls `then` once its outcome is in the cache, or once it gave up waiting for a slot.
    /// Unless `forced`, a DID the cache can answer is `.ready` at once.
    public func fetch(_ did: DID, forced: Bool, then waiter: @escaping Waiter) -> Admission {
        if !forced, cachedKey(for: did) != .missing { return .ready }
        return request(did, waiter: waiter)
    }

    /// Blocks until the DID's signing key is known. With `forceRefresh`, the cache is bypassed unless
    /// this DID was force-refreshed less than `forcedRefreshInterval` ago, in which case the cached
    /// answer stands.
    public func signingKey(for did: DID, forceRefresh: Bool) throws(AuthError) -> AtprotoSigningKey {
        let fetchNow: Bool
        switch cache.withLock({ $0.lookup(did, now: clock()) }) {
        case .fresh(let resolved):
            if !forceRefresh || !claimForcedRefresh(did) { return resolved.signingKey }
            fetchNow = true
        case .stale(let resolved, let refreshDue):
            if !(forceRefresh ? claimForcedRefresh(did) : refreshDue) { return resolved.signingKey }
            fetchNow = true
        case .negative(let error):
            if !forceRefresh || !claimForcedRefresh(did) { throw error }
            fetchNow = true
        case .miss:
            fetchNow = true
        }
        if fetchNow { try fetchAndWait(did) }
        switch cachedKey(for: did) {
        case .key(let key): return key
        case .failure(let error): throw error
        case .missing: throw Self.busy
        }
    }

    /// The account's PDS endpoint (nil when its document names none), from the cache or fetched
    /// now: blocks, for callers on threads of their own (the chat contract's record reads).
    public func pdsEndpoint(for did: DID) throws(AuthError) -> String? {
        if case .success(let resolved?) = cachedDocument(for: did) { return resolved.pdsEndpoint }
        try fetchAndWait(did)
        switch cachedDocument(for: did) {
        case .success(let resolved?): return resolved.pdsEndpoint
        case .success(nil): throw Self.busy
        case .failure(let error): throw error
        }
    }

    /// The account's PDS endpoint when the cache holds its document (never blocks; nil otherwise).
    public func cachedPDSEndpoint(for did: DID) -> String? {
        if case .success(let resolved?) = cachedDocument(for: did) { return resolved.pdsEndpoint }
        return nil
    }

    /// Fetches `did` now (joining a fetch under way) and waits until it ends.
    func fetchAndWait(_ did: DID) throws(AuthError) {
        let done = DispatchSemaphore(value: 0)
        switch request(did, waiter: { done.signal() }) {
        case .started, .joined:
            // The fetch ends within its own deadline once it runs, and leaves the queue after as long.
            _ = done.wait(timeout: .now() + 2 * configuration.resolutionTimeout + 1)
        case .ready:
            break
        case .refused:
            throw Self.busy
        }
    }

    /// Fetches in flight and queued (metrics, tests).
    public var pendingFetches: (running: Int, queued: Int) { pool.pending }

    private func request(_ did: DID, waiter: Waiter?) -> Admission {
        switch pool.request(did, host: host(of: did), waiter: waiter) {
        case .started: .started
        case .joined: .joined
        case .refused: .refused
        }
    }

    private func host(of did: DID) -> String {
        switch did.method {
        case .plc: plcHost
        case .web: did.webHostAndPort?.host ?? ""
        }
    }

    /// Fetches the document and records the outcome in the cache.
    private func resolve(_ did: DID) {
        let outcome = fetchDocument(did)
        let now = clock()
        cache.withLock { cache in
            switch outcome {
            case .success(let resolved): cache.store(resolved, for: did, now: now)
            case .failure(.definitive(let error)): cache.storeFailure(error, transient: false, for: did, now: now)
            case .failure(.transient(let error, _)): cache.storeFailure(error, transient: true, for: did, now: now)
            }
        }
        if case .failure(.transient(_, let detail)) = outcome { diagnostics?(did, detail) }
    }

    private enum FetchError: Error {
        /// The directory answered: no such DID, or no usable key. Cached for `negativeCacheFor`.
        case definitive(AuthError)
        /// Network trouble or an unexpected status: cached for `transientFailureCacheFor`. The
        /// detail (name lookup, connect, TLS, status) goes to the log, never to the caller.
        case transient(AuthError, detail: String)
    }

    private func fetchDocument(_ did: DID) -> Result<ResolvedDID, FetchError> {
        let unreachable = AuthError.badJwtSignature("could not fetch the DID document of \(did)")
        let response: HTTPClientResponse
        do {
            response = try client.get(documentURL(for: did))
        } catch {
            return .failure(.transient(unreachable, detail: "\(error)"))
        }
        switch response.status {
        case 200:
            break
        case 404, 410:
            return .failure(.definitive(.badJwtSignature("DID not found: \(did)")))
        default:
            return .failure(.transient(unreachable, detail: "status \(response.status)"))
        }
        do {
            let document = try DIDDocument.parse(response.body)
            return .success(ResolvedDID(signingKey: try document.atprotoSigningKey(for: did), pdsEndpoint: document.pdsEndpoint(for: did)))
        } catch {
            return .failure(.definitive(.badJwtSignature("no usable atproto key for \(did): \(error)")))
        }
    }

    /// did:plc → `{PLC_URL}/{did}`; did:web → `https://host/.well-known/did.json`, plain http
    /// only for localhost (did:web spec §3.2, atproto DID spec).
    func documentURL(for did: DID) -> String {
        switch did.method {
        case .plc:
            var base = configuration.plcURL
            while base.hasSuffix("/") { base.removeLast() }
            return "\(base)/\(did.rawValue)"
        case .web:
            let (host, port) = did.webHostAndPort ?? (host: "", port: nil)
            if host == "localhost" {
                return "http://localhost\(port.map { ":\($0)" } ?? "")/.well-known/did.json"
            }
            return "https://\(host)/.well-known/did.json"
        }
    }
}
