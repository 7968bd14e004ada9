/// The event loop of one I/O thread: accepts on its listener, reads, parses, answers inline or via
/// the worker pool, writes, and enforces timeouts. Created on its thread and never shared; other
/// threads reach it only through its `IOLoopHandle`.
final class IOLoop {
    // Connection tokens are `fd | serial << 32`; the two special tokens use descriptor values no
    // socket can have.
    private static let listenerToken = UInt64(UInt32.max)
    private static let wakeupToken = UInt64(UInt32.max - 1)
    /// Stream listener `i` (IOLoop+Streams.swift) has token `streamListenerBase - i`.
    static let streamListenerBase = UInt64(UInt32.max - 2)

    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let receiveBuffer = ReceiveBuffer(capacity: 64 * 1024)
    /// Ciphertext on its way into a TLS session, and input discarded while lingering.
    let cipherBuffer = ReceiveBuffer(capacity: 64 * 1024)
    let dateCache = HTTPDateCache()
    /// Monotonic time of the current loop iteration.
    private(set) var now: UInt64 = 0
    private(set) var isDraining = false

    /// Timeouts and limits every connection's state machine runs under.
    let limits: HTTPConnectionMachine.Limits
    private let sweepInterval: UInt64

    let handle: IOLoopHandle
    let shared: ServerShared
    private let events = EpollEvents(capacity: 256)
    private var connections: [HTTPConnection?] = []
    /// Stream connections (IOLoop+Streams.swift), by descriptor like `connections`.
    var streams: [StreamConnection?] = []
    var suspendedStreamListeners: Set<Int> = []
    var liveConnections = 0
    var nextSerial: UInt64 = 1
    private var nextSweep: UInt64 = 0
    private var drainDeadline: UInt64 = 0
    private var listenerSuspended = false

    init(handle: IOLoopHandle, shared: ServerShared) {
        self.handle = handle
        self.shared = shared
        configuration = shared.configuration
        responder = shared.responder
        limits = HTTPConnectionMachine.Limits(configuration: configuration)
        // Sweep for expired deadlines often enough that the shortest timeout fires within ~25% of itself.
        let timeouts = [limits.http.header, limits.http.body, limits.http.idle, limits.transport.handshakeTimeout]
        let shortest: UInt64 = timeouts.filter { $0 > 0 }.min() ?? 1_000_000_000
        sweepInterval = Swift.min(Swift.max(shortest / 4, 5_000_000), 250_000_000)
    }

    // MARK: Flushes held to the end of a round

    /// At most this many connections hold their flush in one round; the next one writes them all.
    static let maxHeldFlushes = 16
    /// The round being run has several events: connections' writes wait for its end
    /// (`holdFlush(of:)`). A client on this host (a reverse proxy, a load generator) is then woken
    /// once for a batch of answers instead of once per answer, as with a server that writes its
    /// replies just before it waits again. A round of one event writes at once, so an idle server
    /// adds no latency; under load an answer waits for at most `maxHeldFlushes` others.
    private(set) var holdsFlushes = false
    private var heldFlushes: [HTTPConnection] = []

    /// `connection` has output and flushes it when the round ends, or when the loop finds
    /// `maxHeldFlushes` waiting between two events (never inside a connection's own run).
    func holdFlush(of connection: HTTPConnection) {
        heldFlushes.append(connection)
    }

    /// Each held connection is told its socket is writable, so its machine flushes (and goes on).
    private func flushHeld() {
        let holding = holdsFlushes
        holdsFlushes = false
        var index = 0
        while index < heldFlushes.count {
            let connection = heldFlushes[index]
            connection.flushHeld = false
            if !connection.isClosed { connection.run(.ready(.writable), loop: self) }
            index += 1
        }
        heldFlushes.removeAll(keepingCapacity: true)
        holdsFlushes = holding
    }

    /// Runs until shutdown has been requested and every connection is closed (or the grace period ended).
    func run() {
        now = MonotonicClock.now()
        nextSweep = now &+ sweepInterval
        while true {
            let timeout = Int32(clamping: (nextSweep > now ? nextSweep - now : 0) / 1_000_000 + 1)
            let count = handle.epoll.wait(into: events, timeoutMS: timeout)
            now = MonotonicClock.now()
            holdsFlushes = count > 1
            for index in 0..<count {
                let (flags, token) = events[index]
                switch token {
                case Self.listenerToken: acceptConnections()
                case Self.wakeupToken: drainWakeups()
                case let token where token <= Self.streamListenerBase && Self.streamListenerBase - token < UInt64(handle.streamListeners.count):
                    acceptStreams(listener: Int(Self.streamListenerBase - token))
                default:
                    // The token carries the serial too: an event queued for a descriptor closed and
                    // reused earlier in this batch must not reach the new connection.
                    let descriptor = Int32(truncatingIfNeeded: token & 0xFFFF_FFFF)
                    if let connection = connection(for: descriptor), connection.serial & 0xFFFF_FFFF == token >> 32 {
                        connection.handle(events: flags, loop: self)
                        // A request started here may have taken a while (sendMessage's signature
                        // check): answers that arrived meanwhile are delivered now, not after the
                        // round (their writes join the round's held flushes).
                        if handle.hasCompletions { drainWakeups() }
                        if heldFlushes.count >= Self.maxHeldFlushes { flushHeld() }
                    } else if let stream = stream(for: descriptor), stream.serial & 0xFFFF_FFFF == token >> 32 {
                        stream.handle(events: flags, loop: self)
                    }
                }
            }
            if holdsFlushes {
                holdsFlushes = false
                flushHeld()
            }
            if !isDraining, handle.stopRequested { beginDraining() }
            if now >= nextSweep {
                sweep()
                nextSweep = now &+ sweepInterval
            }
            if isDraining, liveConnections == 0 || now >= drainDeadline { break }
        }
        closeAll()
    }

    // MARK: Accepting

    private func acceptConnections() {
        guard let listener = handle.listener, !isDraining else { return }
        acceptPending(from: listener, onExhausted: { listenerSuspended = true }) { socket, remoteAddress in
            guard shared.reserveConnection(from: remoteAddress) else {
                // A TLS client could not read a plaintext answer: it just sees the close.
                if shared.currentTLSContext == nil { socket.writeBestEffort(ServerShared.serviceUnavailable) }
                socket.close()
                return
            }
            let target = shared.assign(acceptedBy: handle)
            if target === handle {
                admit(socket, remoteAddress: remoteAddress)
            } else {
                target.post(Completion(descriptor: socket.descriptor, serial: 0, payload: .adopt(socket, remoteAddress: remoteAddress)))
            }
        }
    }

    /// Serves an accepted connection whose reservation is held (`ServerShared.reserveConnection`).
    private func admit(_ socket: Socket, remoteAddress: String) {
        guard !isDraining else {
            handle.assigned.subtract(1, ordering: .relaxed)
            shared.releaseConnection(from: remoteAddress)
            socket.close()
            return
        }
        let tlsContext = shared.currentTLSContext
        let tls: TLSSession?
        do {
            tls = try prepareAccepted(socket, remoteAddress: remoteAddress, wantsTLS: tlsContext != nil, context: tlsContext)
        } catch {
            handle.assigned.subtract(1, ordering: .relaxed)
            return
        }
        let connection = HTTPConnection(
            socket: socket, tls: tls, serial: nextSerial, remoteAddress: remoteAddress,
            parser: HTTPRequestParser(maxHeaderBytes: configuration.maxHeaderBytes, maxBodySize: configuration.defaultMaxBodySize),
            limits: limits, now: now
        )
        nextSerial &+= 1
        let fd = Int(socket.descriptor)
        if fd >= connections.count { connections.append(contentsOf: repeatElement(nil, count: fd + 1 - connections.count)) }
        connections[fd] = connection
        liveConnections += 1
        do { try register(socket, serial: connection.serial) } catch { close(connection) }
    }

    /// Accepts up to 64 pending connections from `listener` and hands each to `admit`. Out of
    /// descriptors, the listener leaves the epoll set until the next sweep (`onExhausted`) instead
    /// of spinning.
    func acceptPending(from listener: Socket, onExhausted: () -> Void, _ admit: (Socket, String) -> Void) {
        for _ in 0..<64 {
            let accepted: (socket: Socket, remoteAddress: String)?
            do {
                accepted = try listener.accept()
            } catch {
                handle.epoll.remove(listener.descriptor)
                onExhausted()
                return
            }
            guard let (socket, remoteAddress) = accepted else { return }
            admit(socket, remoteAddress)
        }
    }

    /// Readies an accepted connection that holds a reservation: TCP_NODELAY and, when `wantsTLS`, a
    /// server TLS session under `context`. Throws when TLS is wanted but no session can be made (no
    /// certificate loaded, or OpenSSL refused); the socket is then closed and its reservation released.
    func prepareAccepted(_ socket: Socket, remoteAddress: String, wantsTLS: Bool, context: ServerTLSContext?) throws(TLSError) -> TLSSession? {
        socket.setNoDelay()
        guard wantsTLS else { return nil }
        do throws(TLSError) {
            guard let context else { throw TLSError.setupFailed("no certificate loaded") }
            return try TLSSession(context: context)
        } catch {
            shared.releaseConnection(from: remoteAddress)
            socket.close()
            throw error
        }
    }

    /// Adds an accepted connection to the epoll set, edge-triggered; its token carries the serial too.
    func register(_ socket: Socket, serial: UInt64) throws(SocketError) {
        let interest = Epoll.readable | Epoll.writable | Epoll.peerHangUp | Epoll.edgeTriggered
        try handle.epoll.add(socket.descriptor, events: interest, data: UInt64(socket.descriptor) | (serial & 0xFFFF_FFFF) << 32)
    }

    private func connection(for descriptor: Int32) -> HTTPConnection? {
        let index = Int(descriptor)
        guard index >= 0, index < connections.count else { return nil }
        return connections[index]
    }

    func close(_ connection: HTTPConnection) {
        guard !connection.isClosed else { return }
        connection.markClosed(loop: self)
        // Closing the descriptor also removes it from the epoll set.
        connection.socket.close()
        connections[Int(connection.socket.descriptor)] = nil
        liveConnections -= 1
        handle.assigned.subtract(1, ordering: .relaxed)
        shared.releaseConnection(from: connection.remoteAddress)
    }

    // MARK: Worker pool

    func submit(_ request: HTTPRequest, from connection: HTTPConnection) {
        let responder = responder
        run(for: connection) { responder.respond(to: request, resumption: $0) }
    }

    /// Starts a request the responder begins on the I/O thread (`HTTPResponder.startsOnIOThread`):
    /// its answer, now or later, is posted like a worker's, and `resume` runs it on the worker pool.
    func start(_ request: HTTPRequest, from connection: HTTPConnection) {
        let responder = responder
        run(for: connection, here: true) { responder.respond(to: request, resumption: $0) }
    }

    /// Runs a streamed-body request on the worker pool while the body is still arriving.
    func submit(_ request: HTTPRequest, body: HTTPBodyStream, from connection: HTTPConnection) {
        let responder = responder
        run(for: connection) { responder.respond(to: request, body: body, resumption: $0) }
    }

    /// Runs `answer` on the worker pool (or first on this thread, `here`) and posts its response to
    /// the connection; an answer the responder set aside runs again when it resumes it.
    private func run(for connection: HTTPConnection, here: Bool = false, _ answer: @escaping @Sendable (HTTPResumption) -> HTTPResponse?) {
        runPayload(for: connection, here: here) { answer($0).map { .response($0) } }
    }

    private func runPayload(for connection: HTTPConnection, here: Bool = false,
                            _ answer: @escaping @Sendable (HTTPResumption) -> Completion.Payload?) {
        let deliver = deliverer(for: connection)
        if here {
            Self.attempt(0, on: shared.workers, onIOThread: true, answer, deliver: deliver)
        } else {
            Self.run(attempt: 0, on: shared.workers, answer, deliver: deliver)
        }
    }

    /// Posts a payload to `connection` from any thread.
    private func deliverer(for connection: HTTPConnection) -> @Sendable (Completion.Payload) -> Void {
        let handle = handle
        let descriptor = connection.socket.descriptor
        let serial = connection.serial
        return { payload in handle.post(Completion(descriptor: descriptor, serial: serial, payload: payload)) }
    }

    private static func run(attempt: Int, on workers: WorkerPool, _ answer: @escaping @Sendable (HTTPResumption) -> Completion.Payload?,
                            deliver: @escaping @Sendable (Completion.Payload) -> Void) {
        workers.submit { Self.attempt(attempt, on: workers, onIOThread: false, answer, deliver: deliver) }
    }

    /// One run of `answer` on this thread: a worker, or the I/O thread (`onIOThread`). Whatever it
    /// sets aside runs again on the worker pool.
    private static func attempt(_ attempt: Int, on workers: WorkerPool, onIOThread: Bool,
                                _ answer: @escaping @Sendable (HTTPResumption) -> Completion.Payload?,
                                deliver: @escaping @Sendable (Completion.Payload) -> Void) {
        let resumption = HTTPResumption(attempt: attempt, again: { run(attempt: attempt + 1, on: workers, answer, deliver: deliver) },
                                        answer: { deliver(.response($0)) }, workers: workers, onIOThread: onIOThread)
        if let payload = answer(resumption) { deliver(payload) }
    }

    /// Asks the responder on the worker pool whether to accept a WebSocket handshake.
    func submitUpgrade(_ request: HTTPRequest, key: String, from connection: HTTPConnection) {
        let responder = responder
        runPayload(for: connection) { resumption in
            switch Self.decideUpgrade(request, responder: responder, resumption: resumption) {
            case let .accept(handler, headers)?: .webSocketAccepted(handler, headers: headers, key: key)
            case let .respond(response)?: .response(response)
            case nil: nil
            }
        }
    }

    enum UpgradeDecision {
        case accept(any WebSocketHandler, headers: HTTPHeaders)
        case respond(HTTPResponse)
    }

    /// The responder's answer to a valid WebSocket handshake: accept, refuse, or answer it as an
    /// ordinary request; nil when it set the handshake aside (on the worker pool only).
    static func decideUpgrade(_ request: HTTPRequest, responder: any HTTPResponder, resumption: HTTPResumption?) -> UpgradeDecision? {
        let upgrade = if let resumption { responder.webSocketUpgrade(for: request, resumption: resumption) } else { responder.webSocketUpgrade(for: request) }
        switch upgrade {
        case let .accept(handler, headers)?: return .accept(handler, headers: headers)
        case let .reject(response)?: return .respond(response)
        case .setAside?: return resumption == nil ? .respond(.error(status: 500, error: "InternalServerError", message: "internal error")) : nil
        case nil:
            guard let resumption else { return .respond(responder.respond(to: request)) }
            return responder.respond(to: request, resumption: resumption).map { .respond($0) }
        }
    }

    private func drainWakeups() {
        // Answers from other threads (the worker pool, sendMessage's lane) go out at once: their
        // clients wait in a closed loop on the lane's next batch, which their next requests fill.
        let holding = holdsFlushes
        holdsFlushes = false
        defer { holdsFlushes = holding }
        handle.wakeup.drain()
        for completion in handle.takeCompletions() {
            if case let .adopt(socket, remoteAddress) = completion.payload {
                admit(socket, remoteAddress: remoteAddress)
                continue
            }
            if case let .stream(message) = completion.payload {
                if let stream = stream(for: completion.descriptor), stream.serial == completion.serial { stream.deliver(message, loop: self) }
                continue
            }
            // The descriptor may have been closed, or closed and reused, while the worker ran.
            guard let connection = connection(for: completion.descriptor), connection.serial == completion.serial else { continue }
            switch completion.payload {
            case let .response(response):
                connection.deliver(response, loop: self)
            case let .webSocketAccepted(handler, headers, key):
                connection.deliverUpgrade(handler, headers: headers, key: key, loop: self)
            case let .webSocket(outbound):
                connection.run(.outbound(HTTPConnectionMachine.WebSocketOutboundEvent(outbound)), loop: self)
            case .resumeBody:
                connection.resumeBodyStream(loop: self)
            case .stream, .adopt:
                break
            }
        }
    }

    // MARK: Timeouts and shutdown

    private func sweep() {
        for case let connection? in connections {
            connection.checkTimeouts(loop: self)
        }
        sweepStreams()
        if listenerSuspended, !isDraining, let listener = handle.listener {
            let interest = Epoll.readable | (configuration.reusePort ? 0 : Epoll.exclusive)
            if (try? handle.epoll.add(listener.descriptor, events: interest, data: Self.listenerToken)) != nil {
                listenerSuspended = false
            }
        }
    }

    private func beginDraining() {
        isDraining = true
        drainDeadline = now &+ MonotonicClock.nanoseconds(configuration.shutdownGracePeriod)
        if let listener = handle.listener { handle.epoll.remove(listener.descriptor) }
        for case let connection? in connections {
            connection.beginDraining(loop: self)
        }
        drainStreams()
    }

    private func closeAll() {
        for case let connection? in connections {
            close(connection)
        }
        // Connections another loop handed over too late to be served.
        for completion in handle.takeCompletions() {
            if case let .adopt(socket, remoteAddress) = completion.payload { admit(socket, remoteAddress: remoteAddress) }
        }
        for case let stream? in streams {
            close(stream)
        }
    }

    /// Registers the listener and the wake-up descriptor on `epoll` before the thread starts.
    /// A listener shared by several loops is registered exclusive so one connection wakes one thread.
    static func register(listener: Socket?, streamListeners: [Socket] = [], wakeup: EventFD, on epoll: Epoll,
                         shared: Bool) throws(SocketError) {
        try epoll.add(wakeup.descriptor, events: Epoll.readable, data: wakeupToken)
        if let listener {
            try epoll.add(listener.descriptor, events: Epoll.readable | (shared ? Epoll.exclusive : 0), data: listenerToken)
        }
        // Each stream listener is shared by every loop.
        for (index, streamListener) in streamListeners.enumerated() {
            try epoll.add(streamListener.descriptor, events: Epoll.readable | Epoll.exclusive, data: streamListenerBase - UInt64(index))
        }
    }
}

extension HTTPConnectionMachine.Limits {
    init(configuration: HTTPServerConfiguration) {
        let idle = MonotonicClock.nanoseconds(configuration.idleTimeout)
        self.init(
            transport: ConnectionTransport.Limits(
                writeTimeout: idle, handshakeTimeout: MonotonicClock.nanoseconds(configuration.tls?.handshakeTimeout ?? 0)
            ),
            http: HTTP1Exchange.Timeouts(
                header: MonotonicClock.nanoseconds(configuration.headerReadTimeout),
                body: MonotonicClock.nanoseconds(configuration.bodyReadTimeout), idle: idle,
                streamMinimumRate: UInt64(Swift.max(0, configuration.streamedBodyMinimumRate)),
                streamMaximum: MonotonicClock.nanoseconds(configuration.streamedBodyTimeout)
            ),
            webSocket: WebSocketControl.Timers(
                pingInterval: MonotonicClock.nanoseconds(configuration.webSocket.pingInterval),
                pongTimeout: MonotonicClock.nanoseconds(configuration.webSocket.pongTimeout),
                closeTimeout: MonotonicClock.nanoseconds(configuration.webSocket.closeTimeout)
            )
        )
    }
}

extension HTTPConnectionMachine.WebSocketOutboundEvent {
    init(_ outbound: WebSocketOutbound) {
        switch outbound {
        case let .frame(bytes): self = .frame(bytes)
        case let .close(code, reason): self = .close(code, reason: reason)
        case .overflow: self = .overflow
        }
    }
}
