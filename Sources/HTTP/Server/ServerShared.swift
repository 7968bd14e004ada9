import Basics
import Synchronization

/// State every I/O thread of one server shares: settings, the responder, the worker pool, the TLS
/// context and the connection counts behind `maxConnections` and `maxConnectionsPerIP`.
final class ServerShared: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    /// The stream listeners' specifications, in the order of `IOLoopHandle.streamListeners`.
    let streams: [StreamListener]
    let workers: WorkerPool
    /// Every I/O loop of the server, to balance connections between them.
    let loops: [IOLoopHandle]
    private let openConnections = Atomic<Int>(0)
    private let openWebSockets = Atomic<Int>(0)
    /// Open connections per peer address, kept only when `maxConnectionsPerIP` is set.
    private let perAddress = Mutex<[String: Int]>([:])
    /// The context new TLS connections use; replaced by `HTTPServer.reloadTLS()`.
    private let tlsContext: Mutex<ServerTLSContext?>

    /// Sent to connections beyond `maxConnections` before they are closed.
    static let serviceUnavailable = HTTPResponseWriter.serialize(
        .error(status: 503, error: "ServiceUnavailable", message: "too many connections"), keepAlive: false
    )

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, tlsContext: ServerTLSContext?,
         streams: [StreamListener] = [], loops: [IOLoopHandle] = []) {
        self.configuration = configuration
        self.loops = loops
        self.responder = responder
        self.streams = streams
        self.tlsContext = Mutex(tlsContext)
        workers = WorkerPool(threadCount: configuration.workerThreads)
    }

    var currentTLSContext: ServerTLSContext? {
        tlsContext.withLock { $0 }
    }

    func replaceTLSContext(_ context: ServerTLSContext) {
        tlsContext.withLock { $0 = context }
    }

    /// Counts a new connection from `address`, or returns false when the total or that
    /// address's limit is reached.
    func reserveConnection(from address: String) -> Bool {
        let count = openConnections.add(1, ordering: .relaxed).newValue
        if count > configuration.maxConnections {
            openConnections.subtract(1, ordering: .relaxed)
            return false
        }
        guard let key = perAddressKey(address) else { return true }
        let limit = configuration.maxConnectionsPerIP
        let admitted = perAddress.withLock { counts in
            let current = counts[key, default: 0]
            guard current < limit else { return false }
            counts[key] = current + 1
            return true
        }
        if !admitted { openConnections.subtract(1, ordering: .relaxed) }
        return admitted
    }

    func releaseConnection(from address: String) {
        openConnections.subtract(1, ordering: .relaxed)
        guard let key = perAddressKey(address) else { return }
        perAddress.withLock { counts in
            let remaining = counts[key, default: 1] - 1
            counts[key] = remaining > 0 ? remaining : nil
        }
    }

    /// Whose connections `address`'s count as: nil when no per-address limit applies to it. An IPv4
    /// peer (an IPv4-mapped one too) counts alone, an IPv6 peer by its /64, so that rotating through
    /// the addresses of one's own /64 gains nothing.
    private func perAddressKey(_ address: String) -> String? {
        guard configuration.maxConnectionsPerIP > 0, configuration.exemptFromConnectionLimit?(address) != true else { return nil }
        return IPAddress.clientKey(address, ipv6Prefix: 64)
    }

    /// The loop a connection accepted by `loop` should go to: the one with the fewest, when it has
    /// at least two fewer than `loop` (so that connections never bounce), else `loop` itself; its
    /// count goes up by one. One shared listener wakes whichever loop is idle, and that loop would
    /// otherwise take a whole burst of connections, and their requests, alone.
    func assign(acceptedBy loop: IOLoopHandle) -> IOLoopHandle {
        let own = loop.assigned.load(ordering: .relaxed)
        var target = loop
        var fewest = own
        for other in loops where other !== loop && !other.stopRequested {
            let count = other.assigned.load(ordering: .relaxed)
            if count < fewest {
                target = other
                fewest = count
            }
        }
        if fewest + 1 >= own { target = loop }
        target.assigned.add(1, ordering: .relaxed)
        return target
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
