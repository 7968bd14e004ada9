/// Where the service's MQTT listener is (docs/mqtt.md) and how long a read waits for the service to
/// answer its sync (the end of the Session's backlog).
public struct MLSRelayConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var tls: Bool
    /// A certificate to trust besides the system store (a test or dev server's).
    public var trustAnchorPEM: [UInt8]?
    /// The service's DID: the audience of the CONNECT token.
    public var serviceDID: String
    /// Seconds a read waits for the service's answer to its sync on relay/s/{client_id} (docs/mqtt.md,
    /// "Sync"): past it the read fails rather than take a partial backlog for the whole.
    public var syncDeadline: Double
    /// Seconds the service's Session keeps this client's subscriptions and missed messages.
    public var sessionExpiry: UInt32 = 7 * 24 * 3600

    public init(host: String, port: Int, tls: Bool = false, trustAnchorPEM: [UInt8]? = nil,
                serviceDID: String = "did:web:localhost", syncDeadline: Double = 30) {
        self.host = host
        self.port = port
        self.tls = tls
        self.trustAnchorPEM = trustAnchorPEM
        self.serviceDID = serviceDID
        self.syncDeadline = syncDeadline
    }

    /// `mqtt://host:port` or `mqtts://host:port` (TLS; 1883 and 8883 by default).
    public init(url: String, serviceDID: String, syncDeadline: Double = 30) throws(MLSClientError) {
        let tls: Bool
        let rest: Substring
        if url.hasPrefix("mqtts://") {
            tls = true
            rest = url.dropFirst(8)
        } else if url.hasPrefix("mqtt://") {
            tls = false
            rest = url.dropFirst(7)
        } else {
            throw .invalidArgument("the MQTT URL must start with mqtt:// or mqtts://")
        }
        let authority = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var host = String(authority)
        var port = tls ? 8883 : 1883
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let parsed = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(parsed) else {
                throw .invalidArgument("the MQTT URL's port is not a port")
            }
            port = parsed
            host = String(authority[..<colon])
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw .invalidArgument("the MQTT URL names no host") }
        self.init(host: host, port: port, tls: tls, serviceDID: serviceDID, syncDeadline: syncDeadline)
    }
}
