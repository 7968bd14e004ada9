/// The limits of the MQTT listener's Relay protocol (docs/SECURITY.md, "The MQTT listener"; the
/// MQTT_* variables of docs/configuration.md). Defaults are chosen so that an honest client never
/// meets them.
public struct RelaySettings: Sendable, Equatable {
    /// Topic Filters one SUBSCRIBE or UNSUBSCRIBE may hold; one with more has every filter refused
    /// (0x97 Quota exceeded) before any is decoded (`MQTTServerConfiguration.maximumTopicFilters`).
    public var maxFiltersPerSubscribe = 128
    /// Subscriptions one Session holds at most; a new filter past it is answered 0x97.
    public var maxSubscriptions = 1000
    /// client_ids one DID may bind; a CONNECT binding one more is refused with 0x97.
    public var maxClientsPerDID = 32
    /// Days a client_id that has not connected stays bound (with nothing stored for it): then it is
    /// unbound and leaves its DID's `relay/u` list.
    public var clientIdleDays = 90
    /// Work one connection may have waiting for the relay workers, in jobs and in bytes; past either,
    /// its input is not read until half of it is done.
    public var maxQueuedJobs = 64
    public var maxQueuedBytes = 2 << 20
    /// Bytes queued for one client and not yet read by it; past it, DISCONNECT 0x97.
    public var maxUnsentBytes = 32 << 20
    /// QoS 1 messages, and their payload bytes, handed to one client and not acknowledged: past
    /// either the Session hands no more (retained values and GroupInfos included) until
    /// acknowledgements come.
    public var maxUnackedMessages = 1000
    public var maxUnackedBytes = 8 << 20
    /// Relay worker threads; nil: `defaultWorkerThreads`. Never more than half the database pool.
    public var workerThreads: Int?

    /// Jobs of one connection a relay worker runs before it turns to the next connection's.
    public static let jobsPerTurn = 2
    /// Distinct filters of a SUBSCRIBE examined in one job (each at most one query); a larger
    /// SUBSCRIBE takes several, each a job of its own turn.
    public static let filtersPerJob = 8

    public init() {}

    /// The relay workers for a server of `workerThreads` XRPC workers and a pool of `poolSize`
    /// connections: as configured or as many as XRPC's, but at most half the pool (at least one),
    /// so relay work never holds every connection XRPC needs.
    public func effectiveWorkerThreads(workerThreads xrpc: Int, poolSize: Int) -> Int {
        min(workerThreads ?? xrpc, max(1, poolSize / 2))
    }
}
