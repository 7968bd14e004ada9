import Basics
import Foundation
import HTTP
import Synchronization

/// Resolves a DID to its atproto signing key (AUTH.md "DID resolution"), with the per-DID cache
/// and the rate-limited forced refresh of check 8. Every failure is a `BadJwtSignature`.
public final class DIDResolver: Sendable {
    private let configuration: ServiceAuthConfiguration
    private let client: HTTPClient
    private let clock: @Sendable () -> Date
    private let cache: Mutex<DIDKeyCache>

    public init(configuration: ServiceAuthConfiguration, clock: @escaping @Sendable () -> Date = Date.init) {
        self.configuration = configuration
        self.clock = clock
        client = HTTPClient(timeout: configuration.resolutionTimeout, maxBodySize: configuration.maxDocumentSize,
                            allowPrivateAddresses: configuration.allowPrivateAddresses)
        cache = Mutex(DIDKeyCache(freshFor: configuration.keyFreshFor, hardExpiry: configuration.keyHardExpiry,
                                  negativeFor: configuration.negativeCacheFor,
                                  forcedRefreshInterval: configuration.forcedRefreshInterval,
                                  capacity: configuration.maxCachedDIDs))
    }

    /// The DID's signing key. With `forceRefresh`, the cache is bypassed unless this DID was
    /// force-refreshed less than `forcedRefreshInterval` ago, in which case the cached answer stands.
    public func signingKey(for did: DID, forceRefresh: Bool) throws(AuthError) -> AtprotoSigningKey {
        let now = clock()
        let (lookup, mayFetch) = cache.withLock { cache in
            (cache.lookup(did, now: now), forceRefresh ? cache.claimForcedRefresh(did, now: now) : true)
        }
        switch (lookup, forceRefresh) {
        case (.fresh(let key), false):
            return key
        case (.negative(let error), false):
            throw error
        case (.fresh(let key), true) where !mayFetch, (.stale(let key), true) where !mayFetch:
            return key
        case (.negative(let error), true) where !mayFetch:
            throw error
        default:
            break
        }

        switch fetch(did) {
        case .success(let key):
            cache.withLock { $0.store(key, for: did, now: now) }
            return key
        case .failure(.definitive(let error)):
            cache.withLock { $0.storeFailure(error, for: did, now: now) }
            throw error
        case .failure(.transient(let error)):
            // A stale key outlives a flaky directory, up to the hard expiry.
            if case .stale(let key) = lookup { return key }
            if case .fresh(let key) = lookup { return key }
            throw error
        }
    }

    private enum FetchError: Error {
        /// The directory answered: no such DID, or no usable key. Cached for `negativeCacheFor`.
        case definitive(AuthError)
        /// Network trouble or an unexpected status: not cached.
        case transient(AuthError)
    }

    private func fetch(_ did: DID) -> Result<AtprotoSigningKey, FetchError> {
        let url = documentURL(for: did)
        let response: HTTPClientResponse
        do {
            response = try client.get(url)
        } catch {
            return .failure(.transient(.badJwtSignature("could not resolve \(did): \(error)")))
        }
        switch response.status {
        case 200:
            break
        case 404, 410:
            return .failure(.definitive(.badJwtSignature("DID not found: \(did)")))
        default:
            return .failure(.transient(.badJwtSignature("could not resolve \(did): status \(response.status)")))
        }
        do {
            let document = try DIDDocument.parse(response.body)
            return .success(try document.atprotoSigningKey(for: did))
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
