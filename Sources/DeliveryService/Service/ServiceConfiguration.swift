import ATProto
import HTTP

/// Everything the service runs with (docs/configuration.md), as plain values: one
/// sub-configuration per layer, which each layer takes as it is. Only `fromEnvironment`
/// (ServiceConfiguration+Environment.swift) knows the variable names.
public struct ServiceConfiguration: Sendable {
    /// HOST, PORT, WORKER_THREADS, the read and idle timeouts, BODY_MIN_RATE, BODY_STREAM_TIMEOUT,
    /// MAX_CONNECTIONS(_PER_IP), SHUTDOWN_GRACE_PERIOD, TLS_CERT_FILE + TLS_KEY_FILE.
    public var http = HTTPServerConfiguration(streamedBodyMinimumRate: 4096, streamedBodyTimeout: 900, maxConnectionsPerIP: 64)
    /// DATABASE_URL, DATABASE_POOL_SIZE, MIGRATIONS_DIR.
    public var database = DatabaseSettings()
    /// SERVICE_DID, PLC_URL, DID_RESOLVER_ALLOW_PRIVATE, AUTH_REQUIRE_LOW_S.
    public var auth = ServiceAuthConfiguration(serviceDID: "did:web:localhost")
    /// SERVICE_ENDPOINT: published in `/.well-known/did.json` and in subscription tickets.
    public var serviceEndpoint = "http://127.0.0.1:8080"
    public var logLevel = Log.Level.info
    /// THIN_MESSAGE_MAX_BYTES, BLOB_QUOTA_BYTES, MAX_UPLOADS(_PER_USER) and the fixed API limits.
    public var limits = ServiceLimits()
    /// RATE_LIMIT_*, TRUSTED_PROXIES.
    public var rateLimits = RateLimitConfiguration()
    /// METRICS_TOKEN: when set, `/metrics` wants `Authorization: Bearer <token>`.
    public var metricsToken: String?
    /// BLOB_DIR: where attachment files are kept, relative to the working directory unless absolute.
    public var blobDirectory = ".data/blobs"
    /// SUBSCRIPTION_TICKET_*, EVENTS_*.
    public var events = EventSettings()
    /// MESSAGE_TTL_DAYS, RETENTION_*.
    public var retention = RetentionSettings()
    /// MESSAGE_BATCH_LANES, MESSAGE_BATCH_MAX.
    public var messageBatching = MessageBatchSettings()
    /// MQTT_PORT: the MQTT 5.0 listener (Relay protocol, docs/mqtt.md) on this port; nil: off.
    public var mqttPort: Int?
    /// CHAT_CIPHER_SUITES: the MLS cipher suites chat conversations may use; the contract's
    /// X-Wing suite (0x004D) unless set.
    public var chatCipherSuites: Set<UInt16> = [0x004D]
    /// CHAT_RELATIONSHIP_*: how relationship records are read (docs/chat.md).
    public var chatRelationships = ChatRelationshipSettings()
    /// CHAT_TYPING_*: how often typing events go out (docs/chat.md).
    public var chatTyping = ChatTypingSettings()
    /// CHAT_EVENT_TTL_HOURS: how long the chat device event stream's rows are kept (docs/chat.md, "Retention").
    public var chatEventLifetime: Double = 24 * 3600
    /// APNS_*, VAPID_*, FCM_*, PUSH_*: push to devices without a socket (docs/push.md).
    public var push = PushSettings()
    /// MQTT_*: the listener's limits (docs/SECURITY.md, "The MQTT listener").
    public var relay = RelaySettings()

    public init() {}

    /// The service's DID (the audience its tokens must name).
    public var serviceDID: String { auth.serviceDID }
}

/// Where the service keeps its rows, and the schema it migrates to at start-up.
public struct DatabaseSettings: Sendable, Equatable {
    /// A libpq connection string; never logged or echoed (it may hold a password).
    public var url = ""
    public var poolSize = 16
    /// Where `NNNN_name.sql` files are applied from.
    public var migrationsDirectory = "migrations"

    /// Seconds a new connection waits for each host of the URL, libpq's least (the URL's own
    /// `connect_timeout` wins): with several hosts (docs/operations.md, "High availability") a
    /// host that does not answer costs each new connection this long before the next is tried.
    public static let connectTimeout: Double = 2

    public init() {}
}

/// Why the service refuses to start: one variable, what is wrong with it, in one line.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public let variable: String
    /// The value as given; nil when it is absent or secret (never echoed).
    public let value: String?
    public let problem: String

    public init(_ variable: String, value: String?, _ problem: String) {
        self.variable = variable
        self.value = value
        self.problem = problem
    }

    public var description: String {
        if let value { return "\(variable)=\(value.debugDescription): \(problem)" }
        return "\(variable): \(problem)"
    }
}
