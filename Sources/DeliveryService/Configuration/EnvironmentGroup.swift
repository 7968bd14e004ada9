/// The sections of docs/configuration.md and of `catbird-mls-server --help`, in this order. A new
/// group is a case here, its title and summary, and a file of declarations
/// (`ServiceConfiguration+<Group>Variables.swift`) listed in `environmentVariables`.
public enum EnvironmentGroup: String, Sendable, CaseIterable {
    case network
    case database
    case identity
    case rateLimits
    case limits
    case retention
    case events
    case mqtt
    case chat
    case push
    case operations

    public var title: String {
        switch self {
        case .network: "Network and TLS"
        case .database: "Database and storage"
        case .identity: "Identity and auth"
        case .rateLimits: "Rate limits"
        case .limits: "Quotas and limits"
        case .retention: "Retention"
        case .events: "Real-time events"
        case .mqtt: "MQTT"
        case .chat: "Chat contract"
        case .push: "Push"
        case .operations: "Logs and metrics"
        }
    }

    /// One paragraph: what the group's variables are for.
    public var summary: String {
        switch self {
        case .network:
            "The listener: where it binds, whether it terminates TLS itself, and how long and how many connections it "
                + "keeps. Every timeout is in seconds (a decimal is allowed, at most 86400)."
        case .database:
            "PostgreSQL (through libpq), the schema migrations applied at start-up, the group commit of sendMessage "
                + "and the folder of attachment files."
        case .identity:
            "Who the service is (the audience every service-auth token must name) and how it resolves the DIDs of "
                + "its callers. Tokens are checked as AT Protocol service auth requires (ES256K or ES256, one use each)."
        case .rateLimits:
            "Token buckets kept in memory by each node: a rule is `rate,burst` (requests per second, and how many "
                + "may come at once) or `off`. Over its limit a request is answered 429 `RateLimitExceeded` with "
                + "`Retry-After`. The per-IP bucket is taken before a token is looked at; the per-DID buckets after."
        case .limits:
            "What one user may store and hold at once. Each is checked in the transaction that would pass it, so it "
                + "holds exactly under concurrent requests (docs/SECURITY.md)."
        case .retention:
            "A background job purges old messages and events in short transactions, giving their bytes back to "
                + "each sender's message quota."
        case .events:
            "subscribeConvoEvents: WebSocket subscriptions opened with single-use tickets (docs/events.md)."
        case .mqtt:
            "The MQTT 5.0 listener of the Relay protocol (docs/mqtt.md), on the same loops, TLS and limits as HTTP."
        case .chat:
            "The `blue.catbird.chat.*` contract the Catbird app calls (docs/chat.md), beside `blue.catbird.mls.*` on "
                + "the same store, auth and limits."
        case .push:
            "Push to devices that hold no socket (docs/push.md): APNs, Web Push and FCM, each off until its variables "
                + "are set, and the outbox workers that deliver from PostgreSQL."
        case .operations:
            "What the service says about itself: its JSON log lines on stderr and `/metrics` (docs/operations.md)."
        }
    }
}
