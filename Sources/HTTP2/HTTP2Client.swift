import Dispatch
import Foundation
import HTTP
import Synchronization

/// An HTTP/2 client for one host (RFC 9113 through libnghttp2): one multiplexed TLS connection
/// (ALPN `h2`) on HTTP's sockets, TLS and epoll, driven by one thread of its own. Requests queue
/// until a stream is free (the server's SETTINGS_MAX_CONCURRENT_STREAMS, at most
/// `maxConcurrentStreams`); each ends within its timeout with a response or an error, its
/// completion called on the client's thread (keep it short). An idle connection is pinged; one
/// that breaks, goes silent or says GOAWAY is replaced, requests the server refused are sent again
/// on the next one, and reconnecting backs off after failures (`HTTP2Lifecycle`).
public final class HTTP2Client: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// PEM certificates trusted instead of the system's (a private or test host).
        public var trustedCertificatesPEM: [UInt8]?
        /// Whether the host may resolve to non-public addresses (it is the operator's choice).
        public var allowPrivateAddresses = true
        /// Name lookup, connect and TLS handshake together.
        public var connectTimeout = 10.0
        /// An idle connection is pinged after this many seconds, and given up when the ping is not
        /// answered within `pingTimeout`.
        public var pingInterval = 60.0
        public var pingTimeout = 10.0
        public var maxConcurrentStreams = 1000
        /// Response bodies and header lists larger than these reset the stream.
        public var maxResponseBody = 64 << 10
        public var maxResponseHeaders = 16 << 10

        public init(host: String, port: Int, trustedCertificatesPEM: [UInt8]? = nil) {
            self.host = host
            self.port = port
            self.trustedCertificatesPEM = trustedCertificatesPEM
        }

        /// `:authority` (RFC 9113 §8.3.1): the host, and the port when not 443.
        var authority: String {
            let name = host.contains(":") ? "[\(host)]" : host
            return port == 443 ? name : "\(name):\(port)"
        }
    }

    typealias Completion = @Sendable (Result<HTTPClientResponse, HTTP2Error>) -> Void

    struct Pending {
        let request: HTTP2Request
        let completion: Completion
        /// Monotonic seconds.
        let deadline: Double
    }

    /// What other threads hand the client's thread.
    struct Inbox {
        var requests: [Pending] = []
        var connection: Result<HTTPClientConnection, HTTP2Error>?
        var stopped = false
    }

    let configuration: Configuration
    private let tls: ClientTLSContext
    private let inbox = Mutex(Inbox())
    private let wake: EventFD
    private let finished = DispatchSemaphore(value: 0)
    /// Connections made so far (tests: one connection for many requests).
    public let connectionsMade = Atomic<Int>(0)

    public init(configuration: Configuration) throws(HTTP2Error) {
        self.configuration = configuration
        do {
            tls = try configuration.trustedCertificatesPEM.map { pem throws(TLSError) in try ClientTLSContext(trustedCertificatesPEM: pem) }
                ?? ClientTLSContext.shared.get()
            wake = try EventFD.make()
        } catch {
            throw .connectFailed("\(error)")
        }
        let thread = Thread { [self] in
            let loop = HTTP2Loop(client: self)
            loop.run()
            finished.signal()
        }
        thread.name = "http2-\(configuration.host)"
        thread.start()
    }

    /// Queues `request`; `completion` gets its response or why there is none, within its timeout.
    /// The response is HTTP's (`HTTPClientResponse`: status, headers with lower-case names, body).
    public func send(_ request: HTTP2Request, completion: @escaping @Sendable (Result<HTTPClientResponse, HTTP2Error>) -> Void) {
        let pending = Pending(request: request, completion: completion, deadline: Self.now() + request.timeout)
        let accepted = inbox.withLock { inbox in
            guard !inbox.stopped else { return false }
            inbox.requests.append(pending)
            return true
        }
        guard accepted else { return completion(.failure(.shutdown)) }
        wake.signal()
    }

    /// Ends the connection and fails what is queued or in flight with `.shutdown`; waits for the thread.
    public func shutdown() {
        let first = inbox.withLock { inbox in
            defer { inbox.stopped = true }
            return !inbox.stopped
        }
        guard first else { return }
        wake.signal()
        finished.wait()
        wake.close()
    }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    // MARK: For the loop

    var wakeDescriptor: Int32 { wake.descriptor }
    func drainWake() { wake.drain() }
    func takeInbox() -> Inbox {
        inbox.withLock { inbox in
            defer {
                inbox.requests = []
                inbox.connection = nil
            }
            return inbox
        }
    }

    /// Connects on a thread of its own (name lookup and the handshake block), then hands the
    /// connection to the loop.
    func connect() {
        let configuration = configuration
        let tls = tls
        Thread.detachNewThread { [self] in
            let result: Result<HTTPClientConnection, HTTP2Error>
            do {
                let connection = try HTTPClientConnection.establish(
                    host: configuration.host, port: UInt16(configuration.port), tls: tls, alpn: Array("\u{2}h2".utf8),
                    allowPrivateAddresses: configuration.allowPrivateAddresses, timeout: configuration.connectTimeout)
                if connection.selectedProtocol == "h2" {
                    result = .success(connection)
                    connectionsMade.add(1, ordering: .relaxed)
                } else {
                    result = .failure(.connectFailed("the server did not choose h2 by ALPN"))
                }
            } catch {
                result = .failure(.connectFailed("\(error)"))
            }
            inbox.withLock { $0.connection = result }
            wake.signal()
        }
    }
}

/// The client's thread: epoll over its wake-up descriptor and the connection's socket, the nghttp2
/// session between them, the queue of requests waiting for a stream and the streams in flight.
/// Everything here runs on that one thread.
final class HTTP2Loop: HTTP2SessionDelegate {
    private struct Stream {
        let pending: HTTP2Client.Pending
        var status: Int?
        var headers: [(String, String)] = []
        var headerBytes = 0
        var body: [UInt8] = []
        var failure: HTTP2Error?
    }

    private unowned let client: HTTP2Client
    private var lifecycle: HTTP2Lifecycle
    private var queue: [HTTP2Client.Pending] = []
    private var streams: [Int32: Stream] = [:]
    private var connection: HTTPClientConnection?
    private var session: HTTP2Session?
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var writable = false
    private var receiveBuffer = [UInt8](repeating: 0, count: 32 << 10)
    private let epoll: Epoll?
    private let events = EpollEvents(capacity: 8)
    private static let wakeToken: UInt64 = 0
    private static let socketToken: UInt64 = 1

    init(client: HTTP2Client) {
        self.client = client
        lifecycle = HTTP2Lifecycle(pingInterval: client.configuration.pingInterval, pingTimeout: client.configuration.pingTimeout)
        epoll = try? Epoll.make()
        try? epoll?.add(client.wakeDescriptor, events: Epoll.readable, data: Self.wakeToken)
    }

    func run() {
        guard let epoll else { return failEverything(.connectFailed("epoll_create1 failed"), stopping: true) }
        defer { epoll.close() }
        while true {
            let timeout = nextTimeout()
            let count = epoll.wait(into: events, timeoutMS: timeout)
            var readable = false
            for index in 0..<count {
                let (flags, token) = events[index]
                if token == Self.wakeToken {
                    client.drainWake()
                } else {
                    if flags & (Epoll.readable | Epoll.hangUp | Epoll.error | Epoll.peerHangUp) != 0 { readable = true }
                    if flags & Epoll.writable != 0 { writable = true }
                }
            }
            let inbox = client.takeInbox()
            if inbox.stopped { return failEverything(.shutdown, stopping: true) }
            queue += inbox.requests
            if let result = inbox.connection { adopt(result) }
            if readable { readAll() }
            step()
        }
    }

    // MARK: One turn

    private func step() {
        let now = HTTP2Client.now()
        expire(now: now)
        for action in lifecycle.tick(now: now, waiting: !queue.isEmpty, streams: streams.count) {
            switch action {
            case .connect: client.connect()
            case .ping: try? session?.ping()
            case .close: close(lost: .connectionLost("the connection stopped answering"))
            }
        }
        if lifecycle.phase == .open, let session {
            let limit = min(client.configuration.maxConcurrentStreams, max(1, session.peerMaxConcurrentStreams))
            while streams.count < limit, !queue.isEmpty {
                let pending = queue.removeFirst()
                do {
                    let stream = try session.submit(method: pending.request.method, authority: client.configuration.authority,
                                                    path: pending.request.path, headers: pending.request.headers,
                                                    body: pending.request.body)
                    streams[stream] = Stream(pending: pending)
                } catch {
                    pending.completion(.failure(.malformedResponse("cannot submit: \(error)")))
                }
            }
        }
        flush()
    }

    /// Requests past their deadline fail; a stream in flight is reset.
    private func expire(now: Double) {
        var kept: [HTTP2Client.Pending] = []
        for pending in queue {
            if pending.deadline <= now { pending.completion(.failure(.timeout)) } else { kept.append(pending) }
        }
        queue = kept
        for (id, stream) in streams where stream.pending.deadline <= now {
            streams[id] = nil
            session?.cancel(id)
            stream.pending.completion(.failure(.timeout))
        }
    }

    private func nextTimeout() -> Int32 {
        let now = HTTP2Client.now()
        var next = lifecycle.nextDeadline(waiting: !queue.isEmpty) ?? now + 60
        for pending in queue { next = min(next, pending.deadline) }
        for stream in streams.values { next = min(next, stream.pending.deadline) }
        return Int32(clamping: Int(max(0, (next - now) * 1000).rounded(.up)) + 1)
    }

    // MARK: The connection

    private func adopt(_ result: Result<HTTPClientConnection, HTTP2Error>) {
        let now = HTTP2Client.now()
        switch result {
        case .failure(let error):
            lifecycle.connectFailed(now: now)
            // Nothing is sent while the host is unreachable: what waits fails with the reason once its
            // deadline passes, or goes out on the next connection.
            _ = error
        case .success(let established):
            do {
                let session = try HTTP2Session()
                session.delegate = self
                try epoll?.add(established.descriptor, events: Epoll.readable | Epoll.writable | Epoll.peerHangUp | Epoll.edgeTriggered,
                               data: Self.socketToken)
                connection = established
                self.session = session
                output = []
                outputOffset = 0
                writable = true
                lifecycle.connected(now: now)
            } catch {
                lifecycle.connectFailed(now: now)
            }
        }
    }

    /// Reads until the socket is drained, feeding the session.
    private func readAll() {
        guard let connection, let session else { return }
        while true {
            let result = receiveBuffer.withUnsafeMutableBytes { connection.receive(into: $0) }
            switch result {
            case .bytes(let count):
                lifecycle.heard(now: HTTP2Client.now())
                let failure = receiveBuffer.withUnsafeBytes { bytes -> HTTP2Session.Failure? in
                    do throws(HTTP2Session.Failure) {
                        try session.receive(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
                        return nil
                    } catch {
                        return error
                    }
                }
                if let failure { return close(lost: .connectionLost("protocol error: \(failure)")) }
                // A response completed here may have closed the connection (GOAWAY drained).
                if self.session == nil { return }
            case .wouldBlock:
                return
            case .closed:
                return close(lost: .connectionLost("the server closed the connection"))
            case .failed(let code):
                return close(lost: .connectionLost("read failed (\(code))"))
            }
        }
    }

    /// Sends what the session has for the server, as far as the socket takes it.
    private func flush() {
        guard let connection, let session else { return }
        while writable {
            if outputOffset >= output.count {
                output = []
                outputOffset = 0
                do { output = try session.pendingOutput(limit: 64 << 10) } catch {
                    return close(lost: .connectionLost("protocol error: \(error)"))
                }
                if output.isEmpty {
                    if connection.hasUnsentOutput {
                        switch connection.flush() {
                        case .wouldBlock: writable = false
                        case .failed, .closed: return close(lost: .connectionLost("write failed"))
                        default: break
                        }
                    }
                    return
                }
            }
            switch connection.send([output][...], firstOffset: outputOffset) {
            case .bytes(let count): outputOffset += count
            case .wouldBlock: writable = false
            case .closed, .failed: return close(lost: .connectionLost("write failed"))
            }
        }
    }

    /// Drops the connection; streams still open on it fail with `lost` (the server may or may not
    /// have processed them).
    private func close(lost error: HTTP2Error) {
        if let connection {
            epoll?.remove(connection.descriptor)
            connection.closeGracefully()
        }
        connection = nil
        session = nil
        output = []
        outputOffset = 0
        let failed = streams.values
        streams = [:]
        for stream in failed { stream.pending.completion(.failure(error)) }
        _ = lifecycle.lost(now: HTTP2Client.now())
    }

    private func failEverything(_ error: HTTP2Error, stopping: Bool) {
        if let connection {
            epoll?.remove(connection.descriptor)
            connection.closeGracefully()
        }
        connection = nil
        session = nil
        let failed = streams.values.map(\.pending) + queue
        streams = [:]
        queue = []
        for pending in failed { pending.completion(.failure(error)) }
    }

    // MARK: HTTP2SessionDelegate

    func session(_ session: HTTP2Session, stream id: Int32, header name: [UInt8], value: [UInt8]) -> Bool {
        guard var stream = streams[id] else { return true }
        stream.headerBytes += name.count + value.count + 32
        guard stream.headerBytes <= client.configuration.maxResponseHeaders, stream.headers.count < 100 else {
            stream.failure = .malformedResponse("the response's header list is too large")
            streams[id] = stream
            return false
        }
        let nameText = String(decoding: name, as: UTF8.self)
        let valueText = String(decoding: value, as: UTF8.self)
        if nameText == ":status" {
            stream.status = Int(valueText)
        } else if !nameText.hasPrefix(":") {
            stream.headers.append((nameText, valueText))
        }
        streams[id] = stream
        return true
    }

    func session(_ session: HTTP2Session, stream id: Int32, data: UnsafeRawBufferPointer) -> Bool {
        guard var stream = streams[id] else { return true }
        guard stream.body.count + data.count <= client.configuration.maxResponseBody else {
            stream.failure = .malformedResponse("the response body is too large")
            streams[id] = stream
            return false
        }
        stream.body.append(contentsOf: data)
        streams[id] = stream
        return true
    }

    func session(_ session: HTTP2Session, closed id: Int32, errorCode: UInt32) {
        // Gone already when its deadline passed (its completion was called then).
        guard let stream = streams.removeValue(forKey: id) else { return }
        if let failure = stream.failure {
            stream.pending.completion(.failure(failure))
        } else if errorCode == 7 {
            // REFUSED_STREAM (RFC 9113 §8.7): not processed; it goes again, first in line.
            queue.insert(stream.pending, at: 0)
        } else if errorCode != 0 {
            stream.pending.completion(.failure(.reset(errorCode)))
        } else if let status = stream.status {
            lifecycle.responded(now: HTTP2Client.now())
            stream.pending.completion(.success(HTTPClientResponse(status: status, headers: stream.headers, body: stream.body)))
        } else {
            stream.pending.completion(.failure(.malformedResponse("the stream ended without a :status")))
        }
    }

    func sessionReceivedPingAck(_ session: HTTP2Session) {
        lifecycle.pingAcknowledged(now: HTTP2Client.now())
    }

    func session(_ session: HTTP2Session, goAway lastStream: Int32, errorCode: UInt32) {
        lifecycle.goAway()
        // nghttp2 closes the streams above lastStream as refused: they are queued again.
    }
}
