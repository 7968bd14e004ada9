/// Settings for service-auth verification and DID resolution (AUTH.md).
public struct ServiceAuthConfiguration: Sendable {
    /// This service's DID; tokens must name it (bare or `#atproto_mls`) as `aud`.
    public var serviceDID: String
    /// Base URL of the PLC directory; `GET {plcURL}/{did}`.
    public var plcURL: String
    /// Lets DID resolution reach loopback and private addresses (tests, local development only).
    public var allowPrivateAddresses: Bool
    /// Reject high-S ECDSA signatures (real PDSes always sign low-S).
    public var requireLowS: Bool
    /// Seconds of clock difference tolerated on `exp` and `iat`.
    public var clockSkew: Double = 60
    /// Longest token lifetime accepted, counted from now, in seconds.
    public var maxTokenLifetime: Double = 3600
    /// Methods (by NSID prefix) whose tokens follow the chat contract's stricter profile (CHAT.md
    /// §1.3): `iat` required, `exp − iat` at most `strictTokenLifetime`, `sub` absent or the issuer.
    public var strictTokenPrefixes: [String] = ["blue.catbird.chat."]
    public var strictTokenLifetime: Double = 60
    /// Overall time budget for one DID document fetch (name lookup, connect, TLS, body), in seconds;
    /// a fetch also waits at most this long in the queue for a free slot.
    public var resolutionTimeout: Double = 3
    /// Cap on a DID document's size in bytes.
    public var maxDocumentSize: Int = 128 * 1024
    /// Serve a cached key this long before refreshing it.
    public var keyFreshFor: Double = 3600
    /// Never serve a cached key older than this, even if refreshing fails.
    public var keyHardExpiry: Double = 24 * 3600
    /// Remember that a DID has no document or no usable key for this long.
    public var negativeCacheFor: Double = 120
    /// Remember that a DID's document could not be fetched (time-out, connection refused, an
    /// unexpected status) for this long: a flood of tokens for it costs one fetch per interval.
    public var transientFailureCacheFor: Double = 10
    /// DID documents fetched at once (the resolver's threads), across all hosts.
    public var maxFetches: Int = 16
    /// DID documents fetched at once from one host (the PLC directory is one host).
    public var maxFetchesPerHost: Int = 8
    /// Fetches waiting for a free slot; beyond this a request that needs one is refused (503).
    public var maxQueuedFetches: Int = 256
    /// At most one forced (signature-failure) refresh per DID in this interval (AUTH.md check 8).
    public var forcedRefreshInterval: Double = 60
    /// Upper bound on DIDs held in the key cache.
    public var maxCachedDIDs: Int = 100_000

    public init(serviceDID: String, plcURL: String = "https://plc.directory",
                allowPrivateAddresses: Bool = false, requireLowS: Bool = true) {
        self.serviceDID = serviceDID
        self.plcURL = plcURL
        self.allowPrivateAddresses = allowPrivateAddresses
        self.requireLowS = requireLowS
    }

    /// The accepted `aud` values: the service DID and its `#atproto_mls` service id.
    public var audiences: Set<String> { [serviceDID, serviceDID + "#atproto_mls"] }
}
