import ATProto
import Foundation

/// Settings of real-time events from the environment (README, "Configuration").
struct EventSettings: Sendable, Equatable {
    /// SUBSCRIPTION_TICKET_KEY: hex or base64, at least 32 bytes; nil shares a generated key
    /// through the database (`service_secrets`).
    var ticketKey: [UInt8]?
    /// SUBSCRIPTION_TICKET_TTL: seconds a ticket stays valid.
    var ticketLifetime: Double = 30
    /// EVENTS_MAX_SOCKETS_PER_USER: open subscribeConvoEvents sockets per DID, per node.
    var maxSocketsPerUser = 5
    /// EVENTS_INLINE_CIPHERTEXT_MAX: messageEvents carry the messageView when its ciphertext is at
    /// most this many bytes (0: pointers only).
    var inlineCiphertextLimit = 16 << 10
    /// EVENTS_WORKER_THREADS: threads that open subscriptions and catch them up from the log.
    var workerThreads = 2

    static func fromEnvironment(_ env: [String: String]) throws(ServiceConfiguration.ConfigurationError) -> EventSettings {
        func integer(_ name: String, _ range: ClosedRange<Int>) throws(ServiceConfiguration.ConfigurationError) -> Int? {
            guard let text = env[name], !text.isEmpty else { return nil }
            guard let value = Int(text), range.contains(value) else { throw .invalid(name, text) }
            return value
        }
        var settings = EventSettings()
        if let text = env["SUBSCRIPTION_TICKET_KEY"], !text.isEmpty {
            guard let key = Hex.decode(text) ?? Base64.decode(text), key.count >= 32 else {
                throw .invalid("SUBSCRIPTION_TICKET_KEY", "(not 32+ bytes of hex or base64)")
            }
            settings.ticketKey = key
        }
        if let seconds = try integer("SUBSCRIPTION_TICKET_TTL", 1...300) { settings.ticketLifetime = Double(seconds) }
        if let count = try integer("EVENTS_MAX_SOCKETS_PER_USER", 1...1000) { settings.maxSocketsPerUser = count }
        if let bytes = try integer("EVENTS_INLINE_CIPHERTEXT_MAX", 0...(1 << 20)) { settings.inlineCiphertextLimit = bytes }
        if let count = try integer("EVENTS_WORKER_THREADS", 1...64) { settings.workerThreads = count }
        return settings
    }

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
