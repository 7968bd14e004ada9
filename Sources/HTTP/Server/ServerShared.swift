import Synchronization

/// State every I/O thread of one server shares: settings, the responder, the worker pool and the
/// connection count behind `maxConnections`.
final class ServerShared: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let workers: WorkerPool
    private let openConnections = Atomic<Int>(0)
    private let openWebSockets = Atomic<Int>(0)
    /// The context new TLS connections use; replaced by `HTTPServer.reloadTLS()`.
    private let tlsContext: Mutex<ServerTLSContext?>

    /// Sent to connections beyond `maxConnections` before they are closed.
    static let serviceUnavailable = HTTPResponseWriter.serialize(
        .error(status: 503, error: "ServiceUnavailable", message: "too many connections"), keepAlive: false
    )

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, tlsContext: ServerTLSContext?) {
        self.configuration = configuration
        self.responder = responder
        self.tlsContext = Mutex(tlsContext)
        workers = WorkerPool(threadCount: configuration.workerThreads)
    }

    var currentTLSContext: ServerTLSContext? {
        tlsContext.withLock { $0 }
    }

    func replaceTLSContext(_ context: ServerTLSContext) {
        tlsContext.withLock { $0 = context }
    }

    /// Counts a new connection, or returns false when the limit is reached.
    func reserveConnection() -> Bool {
        let count = openConnections.add(1, ordering: .relaxed).newValue
        if count > configuration.maxConnections {
            openConnections.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func releaseConnection() {
        openConnections.subtract(1, ordering: .relaxed)
    }

    var connectionCount: Int {
        openConnections.load(ordering: .relaxed)
    }

    func webSocketOpened() {
        openWebSockets.add(1, ordering: .relaxed)
    }

    func webSocketClosed() {
        openWebSockets.subtract(1, ordering: .relaxed)
    }

    var webSocketCount: Int {
        openWebSockets.load(ordering: .relaxed)
    }
}
