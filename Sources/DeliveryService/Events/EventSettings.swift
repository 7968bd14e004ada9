/// Settings of real-time events (docs/configuration.md).
public struct EventSettings: Sendable, Equatable {
    /// The tickets' HMAC key, at least 32 bytes; nil shares a generated key through the database
    /// (`service_secrets`).
    public var ticketKey: [UInt8]?
    /// Seconds a ticket stays valid.
    public var ticketLifetime: Double = 30
    /// Open subscribeConvoEvents sockets per DID, per node.
    public var maxSocketsPerUser = 5
    /// messageEvents carry the messageView when its ciphertext is at most this many bytes (0:
    /// pointers only).
    public var inlineCiphertextLimit = 16 << 10
    /// Threads that open subscriptions and catch them up from the log.
    public var workerThreads = 2

    public init() {}

    /// The WebSocket URL of subscribeConvoEvents on `serviceEndpoint` (https → wss, http → ws).
    static func subscriptionEndpoint(serviceEndpoint: String) -> String {
        var base = serviceEndpoint
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasPrefix("https://") {
            base = "wss://" + base.dropFirst(8)
        } else if base.hasPrefix("http://") {
            base = "ws://" + base.dropFirst(7)
        }
        return base + "/xrpc/blue.catbird.mls.subscribeConvoEvents"
    }
}
