#if canImport(Glibc)
import Glibc
#endif

/// Server settings. Times are in seconds.
public struct HTTPServerConfiguration: Sendable {
    public var host: String
    /// 0 binds an ephemeral port; read it back from `HTTPServer.port`.
    public var port: Int
    /// I/O threads, each with its own epoll instance and listening socket.
    public var ioThreads: Int
    /// Threads running responders that may block.
    public var workerThreads: Int
    /// Request-line plus header section, beyond which the answer is 431.
    public var maxHeaderBytes: Int
    /// Body limit when the responder returns a negative `maxBodySize`.
    public var defaultMaxBodySize: Int
    /// Time allowed to receive a complete head, from its first byte (or from accept): slowloris defence.
    public var headerReadTimeout: Double
    /// Time allowed to receive a complete body once its head arrived; for a streamed body, the
    /// longest silence between its bytes.
    public var bodyReadTimeout: Double
    /// A streamed body must average at least this many bytes per second, counted after its first
    /// `bodyReadTimeout` (0: no minimum): a client cannot hold a worker by sending a byte now and then.
    public var streamedBodyMinimumRate: Int
    /// A streamed body must end within this many seconds of its head (0: no limit). Neither bound
    /// counts time the server itself holds the body back.
    public var streamedBodyTimeout: Double
    /// Time an open connection may sit between requests, and a stalled write may wait.
    public var idleTimeout: Double
    /// Open connections across all I/O threads; more are answered 503 and closed.
    public var maxConnections: Int
    /// How long `shutdown()` lets in-flight requests finish before closing their connections.
    public var shutdownGracePeriod: Double
    /// One SO_REUSEPORT listener per I/O thread (true) or one listener shared by all, registered
    /// EPOLLEXCLUSIVE so a connection wakes one idle thread (false). Shared measured faster on 2 cores
    /// under wrk, and cannot silently share its port with another process of the same user.
    public var reusePort: Bool
    public var listenBacklog: Int
    /// TLS termination on the listener; nil serves plain HTTP.
    public var tls: HTTPServerTLSConfiguration?
    /// Limits and timers of WebSocket connections.
    public var webSocket: WebSocketConfiguration
    /// Open connections from one peer address (an IPv6 peer's whole /64 counting as one); more are
    /// answered 503 and closed. 0 = no limit.
    public var maxConnectionsPerIP: Int
    /// Peers `maxConnectionsPerIP` does not apply to (reverse proxies that carry many clients).
    public var exemptFromConnectionLimit: (@Sendable (String) -> Bool)?

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        ioThreads: Int = HTTPServerConfiguration.activeProcessorCount,
        workerThreads: Int = 32,
        maxHeaderBytes: Int = 16_384,
        defaultMaxBodySize: Int = 1 << 20,
        headerReadTimeout: Double = 10,
        bodyReadTimeout: Double = 30,
        streamedBodyMinimumRate: Int = 0,
        streamedBodyTimeout: Double = 0,
        idleTimeout: Double = 60,
        maxConnections: Int = 4096,
        shutdownGracePeriod: Double = 10,
        reusePort: Bool = false,
        listenBacklog: Int = 1024,
        tls: HTTPServerTLSConfiguration? = nil,
        maxConnectionsPerIP: Int = 0,
        webSocket: WebSocketConfiguration = WebSocketConfiguration()
    ) {
        self.host = host
        self.port = port
        self.ioThreads = ioThreads
        self.workerThreads = workerThreads
        self.maxHeaderBytes = maxHeaderBytes
        self.defaultMaxBodySize = defaultMaxBodySize
        self.headerReadTimeout = headerReadTimeout
        self.bodyReadTimeout = bodyReadTimeout
        self.streamedBodyMinimumRate = streamedBodyMinimumRate
        self.streamedBodyTimeout = streamedBodyTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.shutdownGracePeriod = shutdownGracePeriod
        self.reusePort = reusePort
        self.listenBacklog = listenBacklog
        self.tls = tls
        self.maxConnectionsPerIP = maxConnectionsPerIP
        self.webSocket = webSocket
    }

    public static var activeProcessorCount: Int {
        Swift.max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
