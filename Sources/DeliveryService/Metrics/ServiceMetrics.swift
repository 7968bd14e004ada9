import Store
import Synchronization

/// The service's counters for `GET /metrics`. Every label value is bounded: NSIDs from the route
/// table (unknown ones count as `_unknown`), fixed status codes, error names from code.
public final class ServiceMetrics: Sendable {
    public struct Gauges: Sendable {
        public var httpConnections: @Sendable () -> Int
        public var databasePool: @Sendable () -> (size: Int, inUse: Int)
        public var rateLimitKeys: @Sendable () -> Int
        /// Whether the health check (HealthMonitor, once a second) last reached a primary.
        public var databaseUp: @Sendable () -> Bool
        /// Conversations whose announced events the node's fan-out has not read yet (EventHub).
        public var eventFanoutPending: @Sendable () -> Int
        /// The pool's and the LISTEN connection's opens, losses and reconnects.
        public var connections: [(name: String, counters: ConnectionCounters)]

        public init(httpConnections: @escaping @Sendable () -> Int,
                    databasePool: @escaping @Sendable () -> (size: Int, inUse: Int),
                    rateLimitKeys: @escaping @Sendable () -> Int,
                    databaseUp: @escaping @Sendable () -> Bool,
                    eventFanoutPending: @escaping @Sendable () -> Int,
                    connections: [(name: String, counters: ConnectionCounters)]) {
            self.httpConnections = httpConnections
            self.databasePool = databasePool
            self.rateLimitKeys = rateLimitKeys
            self.databaseUp = databaseUp
            self.eventFanoutPending = eventFanoutPending
            self.connections = connections
        }
    }

    static let unknownMethod = "_unknown"

    private let methods: [String: MethodMetrics]
    private let methodOrder: [String]
    public let authFailures = LabeledCounters()
    public let commitRejections = LabeledCounters()
    /// Keyed by `ip`, `did_resolution`, `uploads` or a `RateLimitClass` raw value.
    private let rateLimited: [String: Counter]
    public let epochsAdvanced = Counter()
    /// Push delivery (docs/push.md); exposed once push runs on this node.
    public let push = PushMetrics()
    private let gauges = Mutex<Gauges?>(nil)

    public init(nsids: [String]) {
        methodOrder = nsids.sorted() + [Self.unknownMethod]
        methods = Dictionary(uniqueKeysWithValues: methodOrder.map { ($0, MethodMetrics(nsid: $0, appliesCommits: RequestMetrics.commitMethods.contains($0))) })
        rateLimited = Dictionary(uniqueKeysWithValues: (["ip", "did_resolution", "uploads"] + RateLimitClass.allCases.map(\.rawValue)).map { ($0, Counter()) })
    }

    /// The live values read at scrape time; set once the server exists.
    public func setGauges(_ value: Gauges) { gauges.withLock { $0 = value } }

    public func recordRequest(nsid: String, status: Int, nanoseconds: UInt64) {
        methodMetrics(nsid: nsid).record(status: status, nanoseconds: nanoseconds)
    }

    /// The counters of `nsid`, or of unknown NSIDs: the router looks them up once per method.
    func methodMetrics(nsid: String) -> MethodMetrics {
        methods[nsid] ?? methods[Self.unknownMethod]!
    }

    public func recordRateLimited(scope: String) { rateLimited[scope]?.increment() }

    public func requests(nsid: String, status: Int) -> UInt64 { methods[nsid]?.counter(status: status)?.value ?? 0 }
    public func rateLimitedCount(scope: String) -> UInt64 { rateLimited[scope]?.value ?? 0 }

    /// The exposition text.
    public func render() -> String {
        var out = PrometheusText()
        out.header("catbird_mls_requests_total", "counter", "XRPC requests by method and response status.")
        for nsid in methodOrder {
            let method = methods[nsid]!
            for status in MethodMetrics.statuses {
                let value = method.counter(status: status)!.value
                if value > 0 { out.sample("catbird_mls_requests_total", ["method": nsid, "status": String(status)], value) }
            }
            if method.otherStatus.value > 0 {
                out.sample("catbird_mls_requests_total", ["method": nsid, "status": "other"], method.otherStatus.value)
            }
        }
        out.header("catbird_mls_request_duration_seconds", "histogram", "XRPC request handling time by method.")
        for nsid in methodOrder {
            let histogram = methods[nsid]!.latency
            guard histogram.count.value > 0 else { continue }
            let counts = histogram.cumulativeCounts
            for (index, bound) in (LatencyHistogram.bounds + [.infinity]).enumerated() {
                out.sample("catbird_mls_request_duration_seconds_bucket",
                           ["method": nsid, "le": PrometheusText.number(bound)], counts[index])
            }
            out.sample("catbird_mls_request_duration_seconds_sum", ["method": nsid], String(histogram.sumSeconds))
            out.sample("catbird_mls_request_duration_seconds_count", ["method": nsid], counts.last!)
        }
        out.header("catbird_mls_epochs_advanced_total", "counter", "Commits accepted, each moving a conversation to its next epoch.")
        out.sample("catbird_mls_epochs_advanced_total", [:], epochsAdvanced.value)
        out.header("catbird_mls_commits_rejected_total", "counter", "Commits refused, by XRPC error name.")
        for row in commitRejections.snapshot { out.sample("catbird_mls_commits_rejected_total", ["reason": row.label], row.value) }
        out.header("catbird_mls_auth_failures_total", "counter", "Service-auth failures, by AUTH.md error name.")
        for row in authFailures.snapshot { out.sample("catbird_mls_auth_failures_total", ["reason": row.label], row.value) }
        out.header("catbird_mls_rate_limited_total", "counter", "Requests answered 429, by limit (ip or method class).")
        for scope in rateLimited.keys.sorted() { out.sample("catbird_mls_rate_limited_total", ["scope": scope], rateLimited[scope]!.value) }
        push.render(into: &out)
        if let gauges = gauges.withLock({ $0 }) {
            let pool = gauges.databasePool()
            out.header("catbird_mls_http_connections", "gauge", "Open HTTP connections.")
            out.sample("catbird_mls_http_connections", [:], String(gauges.httpConnections()))
            out.header("catbird_mls_db_pool_size", "gauge", "PostgreSQL connections in the pool.")
            out.sample("catbird_mls_db_pool_size", [:], String(pool.size))
            out.header("catbird_mls_db_pool_in_use", "gauge", "PostgreSQL connections checked out.")
            out.sample("catbird_mls_db_pool_in_use", [:], String(pool.inUse))
            out.header("catbird_mls_rate_limit_keys", "gauge", "Rate-limit buckets held in memory.")
            out.sample("catbird_mls_rate_limit_keys", [:], String(gauges.rateLimitKeys()))
            out.header("catbird_mls_database_up", "gauge", "1 while the service reaches a primary (the health check's last answer, once a second), else 0.")
            out.sample("catbird_mls_database_up", [:], gauges.databaseUp() ? "1" : "0")
            out.header("catbird_mls_event_fanout_pending", "gauge", "Conversations with announced events not yet read for this node's subscribers.")
            out.sample("catbird_mls_event_fanout_pending", [:], String(gauges.eventFanoutPending()))
            for (name, help, value) in [
                ("catbird_mls_db_reconnects_total", "Database connections opened to replace a lost one, by connection (pool, listener).",
                 \ConnectionCounters.reconnects),
                ("catbird_mls_db_connections_lost_total", "Database connections that broke in use or were found closed, by connection.",
                 \ConnectionCounters.lost),
                ("catbird_mls_db_connect_failures_total", "Attempts to open a database connection that failed, by connection.",
                 \ConnectionCounters.failedOpens),
            ] as [(String, String, KeyPath<ConnectionCounters, UInt64>)] {
                out.header(name, "counter", help)
                for connection in gauges.connections { out.sample(name, ["connection": connection.name], connection.counters[keyPath: value]) }
            }
        }
        return out.text
    }
}
