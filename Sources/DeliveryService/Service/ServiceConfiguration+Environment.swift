import ATProto
import Basics
import Foundation
import HTTP

/// The one place that reads the environment (README, "Configuration"). An empty variable counts as
/// unset; a value that is set but unusable, or half of a pair, refuses the start with a one-line
/// `ConfigurationError` naming the variable. Secrets (DATABASE_URL, METRICS_TOKEN,
/// SUBSCRIPTION_TICKET_KEY) are never echoed.
extension ServiceConfiguration {
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ConfigurationError) -> ServiceConfiguration {
        let env = EnvironmentReader(environment)
        var config = ServiceConfiguration()

        // HTTP server.
        if let host = env.string("HOST") {
            guard EnvironmentReader.isListenAddress(host) else {
                throw ConfigurationError("HOST", value: host, "expected a numeric IPv4 or IPv6 address, or localhost")
            }
            config.http.host = host
        }
        if let port = try env.integer("PORT", in: 0...65_535) { config.http.port = port }
        config.mqttPort = try env.integer("MQTT_PORT", in: 0...65_535)
        if let count = try env.integer("WORKER_THREADS", in: 1...1024) { config.http.workerThreads = count }
        if let seconds = try env.seconds("HEADER_READ_TIMEOUT") { config.http.headerReadTimeout = seconds }
        if let seconds = try env.seconds("BODY_READ_TIMEOUT") { config.http.bodyReadTimeout = seconds }
        if let rate = try env.integer("BODY_MIN_RATE", in: 0...(1 << 30)) { config.http.streamedBodyMinimumRate = rate }
        if let seconds = try env.seconds("BODY_STREAM_TIMEOUT") { config.http.streamedBodyTimeout = seconds }
        if let seconds = try env.seconds("IDLE_TIMEOUT") { config.http.idleTimeout = seconds }
        if let seconds = try env.seconds("SHUTDOWN_GRACE_PERIOD") { config.http.shutdownGracePeriod = seconds }
        if let count = try env.integer("MAX_CONNECTIONS", in: 1...1_000_000) { config.http.maxConnections = count }
        if let count = try env.integer("MAX_CONNECTIONS_PER_IP", in: 0...1_000_000) { config.http.maxConnectionsPerIP = count }
        switch (env.string("TLS_CERT_FILE"), env.string("TLS_KEY_FILE")) {
        case (let certificate?, let key?):
            config.http.tls = HTTPServerTLSConfiguration(certificateChainFile: certificate, privateKeyFile: key)
        case (_?, nil):
            throw ConfigurationError("TLS_KEY_FILE", value: nil, "not set, but TLS_CERT_FILE is: set both to serve TLS, or neither")
        case (nil, _?):
            throw ConfigurationError("TLS_CERT_FILE", value: nil, "not set, but TLS_KEY_FILE is: set both to serve TLS, or neither")
        case (nil, nil):
            config.http.tls = nil
        }

        // Database.
        if let url = env.string("DATABASE_URL") { config.database.url = url }
        if let size = try env.integer("DATABASE_POOL_SIZE", in: 1...1000) { config.database.poolSize = size }
        if let directory = env.string("MIGRATIONS_DIR") { config.database.migrationsDirectory = directory }

        // Service auth and DID resolution.
        if let did = env.string("SERVICE_DID") {
            guard (try? DID(did)) != nil else {
                throw ConfigurationError("SERVICE_DID", value: did, "expected a bare did:web or did:plc")
            }
            config.auth.serviceDID = did
        }
        if let url = try env.httpURL("PLC_URL") { config.auth.plcURL = url }
        if let allow = try env.flag("DID_RESOLVER_ALLOW_PRIVATE") { config.auth.allowPrivateAddresses = allow }
        if let require = try env.flag("AUTH_REQUIRE_LOW_S") { config.auth.requireLowS = require }
        if let count = try env.integer("DID_RESOLVER_THREADS", in: 1...256) { config.auth.maxFetches = count }
        if let count = try env.integer("DID_RESOLVER_PER_HOST", in: 1...256) { config.auth.maxFetchesPerHost = count }
        if let count = try env.integer("DID_RESOLVER_QUEUE", in: 1...100_000) { config.auth.maxQueuedFetches = count }
        let authority = config.http.host.contains(":") && !config.http.host.hasPrefix("[") ? "[\(config.http.host)]" : config.http.host
        config.serviceEndpoint = try env.httpURL("SERVICE_ENDPOINT") ?? "http://\(authority):\(config.http.port)"

        if let name = env.string("LOG_LEVEL") {
            guard let level = Log.Level(name: name) else {
                throw ConfigurationError("LOG_LEVEL", value: name, "expected debug, info, warning or error")
            }
            config.logLevel = level
        }
        config.metricsToken = env.string("METRICS_TOKEN")

        // Limits.
        if let bytes = try env.integer("THIN_MESSAGE_MAX_BYTES", in: 1...Int(Int32.max)) {
            config.limits.maxExternalMessageBytes = bytes
        }
        if let bytes = try env.integer("BLOB_QUOTA_BYTES", in: 0...Int(Int64.max)) { config.limits.blobQuotaBytes = Int64(bytes) }
        if let count = try env.integer("MAX_UPLOADS_PER_USER", in: 1...1000) { config.limits.maxUploadsPerUser = count }
        config.limits.maxUploads = try env.integer("MAX_UPLOADS", in: 1...1024) ?? max(1, config.http.workerThreads / 2)
        if let directory = env.string("BLOB_DIR") { config.blobDirectory = directory }

        // Group commit of sendMessage.
        if let lanes = try env.integer("MESSAGE_BATCH_LANES", in: 1...64) { config.messageBatching.lanes = lanes }
        if let count = try env.integer("MESSAGE_BATCH_MAX", in: 1...1000) { config.messageBatching.maxBatch = count }

        // Rate limits.
        if let enabled = try env.flag("RATE_LIMIT_ENABLED") { config.rateLimits.enabled = enabled }
        try env.rateLimitRule("RATE_LIMIT_IP") { config.rateLimits.perIP = $0 }
        try env.rateLimitRule("RATE_LIMIT_DID_RESOLUTION") { config.rateLimits.perIPResolution = $0 }
        for kind in RateLimitClass.allCases {
            try env.rateLimitRule(Self.rateLimitVariable(kind)) { config.rateLimits.perDID[kind] = $0 }
        }
        if let text = env.string("TRUSTED_PROXIES") {
            do { config.rateLimits.trustedProxies = try TrustedProxies(parsing: text) } catch {
                throw ConfigurationError("TRUSTED_PROXIES", value: text, "expected comma-separated IP addresses or CIDRs")
            }
            // A proxy carries many clients' connections: MAX_CONNECTIONS_PER_IP is not for it.
            let proxies = config.rateLimits.trustedProxies
            config.http.exemptFromConnectionLimit = { peer in IPAddress(peer).map(proxies.isTrusted) ?? false }
        }

        // Real-time events.
        if let text = env.string("SUBSCRIPTION_TICKET_KEY") {
            guard let key = Hex.decode(text) ?? Base64.decode(text), key.count >= 32 else {
                throw ConfigurationError("SUBSCRIPTION_TICKET_KEY", value: nil, "expected at least 32 bytes, hex or base64")
            }
            config.events.ticketKey = key
        }
        if let seconds = try env.integer("SUBSCRIPTION_TICKET_TTL", in: 1...300) { config.events.ticketLifetime = Double(seconds) }
        if let count = try env.integer("EVENTS_MAX_SOCKETS_PER_USER", in: 1...1000) { config.events.maxSocketsPerUser = count }
        if let bytes = try env.integer("EVENTS_INLINE_CIPHERTEXT_MAX", in: 0...(1 << 20)) { config.events.inlineCiphertextLimit = bytes }
        if let count = try env.integer("EVENTS_WORKER_THREADS", in: 1...64) { config.events.workerThreads = count }

        // Retention.
        if let days = try env.integer("MESSAGE_TTL_DAYS", in: 0...36_500) { config.retention.ttlDays = days }
        if let epochs = try env.integer("RETENTION_KEEP_COMMIT_EPOCHS", in: 0...1_000_000) { config.retention.keepCommitEpochs = epochs }
        if let size = try env.integer("RETENTION_BATCH_SIZE", in: 1...1_000_000) { config.retention.batchSize = size }
        if let seconds = try env.integer("RETENTION_INTERVAL_SECONDS", in: 1...(86_400 * 7)) {
            config.retention.interval = Double(seconds)
        }

        // Quotas (issue 14, docs/SECURITY.md).
        if let bits = try env.integer("RATE_LIMIT_IPV6_PREFIX", in: 32...128) { config.rateLimits.ipv6Prefix = bits }
        if let count = try env.integer("MAX_CONVOS_PER_USER", in: 1...10_000_000) { config.limits.maxConvosPerUser = count }
        if let bytes = try env.integer("MESSAGE_QUOTA_BYTES", in: 1...Int(Int64.max)) { config.limits.messageQuotaBytes = Int64(bytes) }
        if let count = try env.integer("KEY_PACKAGE_USES_PER_REQUESTER", in: 1...1_000_000) {
            config.limits.keyPackageUses.perRequester = count
        }
        if let count = try env.integer("KEY_PACKAGE_USES_PER_TARGET", in: 1...1_000_000) { config.limits.keyPackageUses.perTarget = count }
        if let seconds = try env.integer("KEY_PACKAGE_USE_WINDOW", in: 1...(86_400 * 30)) {
            config.limits.keyPackageUses.window = Double(seconds)
        }

        // Last, so that a malformed value elsewhere is named even where no database is configured.
        guard !config.database.url.isEmpty else {
            throw ConfigurationError("DATABASE_URL", value: nil, "not set: a libpq connection string is required")
        }
        // No default: a service that silently took a shared placeholder would accept tokens minted
        // for any other service run the same way. `make run` sets the development one (scripts/run.sh).
        guard env.string("SERVICE_DID") != nil else {
            throw ConfigurationError("SERVICE_DID", value: nil,
                                     "not set: the service's own did:web or did:plc is required (make run sets \(Self.developmentServiceDID))")
        }
        return config
    }

    /// What `make run` sets SERVICE_DID to when it is not configured; the service says so in its log.
    public static let developmentServiceDID = "did:web:localhost"

    /// The variable holding a method class's per-DID rule.
    static func rateLimitVariable(_ kind: RateLimitClass) -> String {
        switch kind {
        case .send: "RATE_LIMIT_SEND"
        case .read: "RATE_LIMIT_READ"
        case .keyPackages: "RATE_LIMIT_KEY_PACKAGES"
        case .membership: "RATE_LIMIT_MEMBERSHIP"
        }
    }
}

/// Typed reads of environment variables, each refusal a `ConfigurationError` naming the variable.
struct EnvironmentReader {
    private let values: [String: String]

    init(_ values: [String: String]) { self.values = values }

    /// The value, or nil when the variable is unset or empty.
    func string(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(name, value: text, "expected an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A duration in seconds: more than 0, at most a day.
    func seconds(_ name: String) throws(ConfigurationError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text), value.isFinite, value > 0, value <= 86_400 else {
            throw ConfigurationError(name, value: text, "expected seconds, more than 0 and at most 86400")
        }
        return value
    }

    func flag(_ name: String) throws(ConfigurationError) -> Bool? {
        guard let text = string(name) else { return nil }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(name, value: text, "expected 1 or 0 (true/false, yes/no, on/off)")
        }
    }

    /// An absolute http(s) URL with a host.
    func httpURL(_ name: String) throws(ConfigurationError) -> String? {
        guard let text = string(name) else { return nil }
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
            throw ConfigurationError(name, value: text, "expected an http:// or https:// URL")
        }
        return text
    }

    /// `rate,burst` or `off` (nil: no limit), handed to `apply` when the variable is set.
    func rateLimitRule(_ name: String, _ apply: (RateLimitRule?) -> Void) throws(ConfigurationError) {
        guard let text = string(name) else { return }
        if text.lowercased() == "off" { return apply(nil) }
        guard let rule = RateLimitRule(parsing: text) else {
            throw ConfigurationError(name, value: text, "expected rate,burst (per second, e.g. 20,100) or off")
        }
        apply(rule)
    }

    /// What the HTTP server can bind: `localhost` or a numeric address, without a port.
    static func isListenAddress(_ host: String) -> Bool {
        if host == "localhost" { return true }
        guard let address = IPAddress(Substring(host)) else { return false }
        // IPAddress also reads `a.b.c.d:port` and `[v6]:port`, which are not addresses to bind.
        return address.isIPv4 ? !host.contains(":") : !host.contains("]:")
    }
}
