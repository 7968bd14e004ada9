/// One client connection, owned by one I/O thread: the thin I/O shell around
/// `HTTPConnectionMachine`. It performs the machine's actions (socket reads and writes, TLS, parser
/// steps, responder calls, worker dispatch, WebSocket frames) and reports each outcome back as the
/// next event. Every decision (when to read, parse, write, pause, linger, close, time out) is the
/// machine's; this class only moves bytes and calls out.
final class HTTPConnection {
    typealias Event = HTTPConnectionMachine.Event
    typealias Action = HTTPConnectionMachine.Action

    let socket: Socket
    /// The TLS session on a TLS listener; nil for plain HTTP.
    let tls: TLSSession?
    let serial: UInt64
    let remoteAddress: String
    private(set) var machine: HTTPConnectionMachine
    /// When the loop's sweep should report `.tick` (the machine's timer), if ever.
    private(set) var timer: UInt64?
    private(set) var isClosed = false
    private var actions: [Action] = []
    private var handshakeReported = false
    /// The connection waits in its loop's held flushes.
    var flushHeld = false

    // MARK: Input

    var parser: HTTPRequestParser
    /// Input held between reads (usually empty: input is parsed straight from the read buffer).
    var held = HeldInput()
    /// Bytes the last read left in the loop's receive buffer, and how many of them were used.
    var fresh = 0
    var freshUsed = 0

    // MARK: Output

    var output = OutputQueue()
    /// A file response still being sent, after everything in `output`.
    var fileBody: (file: HTTPFileBody, position: Int, remaining: Int)?

    // MARK: The exchange

    /// The head of the request being read.
    var head: HTTPRequestHead?
    /// A complete request waiting for its answer to be computed (inline or by a worker).
    var request: HTTPRequest?
    /// The request routed to the worker pool is started on this thread (`HTTPResponder.startsOnIOThread`).
    var startsOnIOThread = false
    /// Method and version of the request being answered (a HEAD response carries no content).
    var answering: (method: HTTPMethod, version: HTTPVersion) = (.get, .http1_1)
    /// The answer for a malformed WebSocket handshake, given instead of calling the responder.
    var handshakeRefusal: HTTPResponse?
    /// The client key of a valid WebSocket handshake being decided.
    var upgradeKey: String?
    /// The handshake request while the worker pool decides on it.
    var webSocketRequest: HTTPRequestHead?
    /// What a worker delivered, while the machine handles it.
    var workerResponse: HTTPResponse?
    var acceptedUpgrade: (handler: any WebSocketHandler, headers: HTTPHeaders, key: String)?
    /// The body being streamed to a worker; nil once it ended.
    var bodyStream: HTTPBodyStream?
    /// Set once the connection switched protocols.
    var webSocket: WebSocketSession?

    init(socket: Socket, tls: TLSSession? = nil, serial: UInt64, remoteAddress: String, parser: HTTPRequestParser,
         limits: HTTPConnectionMachine.Limits, now: UInt64) {
        self.socket = socket
        self.tls = tls
        self.serial = serial
        self.remoteAddress = remoteAddress
        self.parser = parser
        machine = HTTPConnectionMachine(limits: limits, isTLS: tls != nil, now: now)
        timer = machine.timer
    }

    // MARK: Events from the loop

    func handle(events: UInt32, loop: IOLoop) {
        run(.ready(SocketReadiness(epollEvents: events)), loop: loop)
    }

    /// The worker pool finished the request this connection was waiting for.
    func deliver(_ response: HTTPResponse, loop: IOLoop) {
        workerResponse = response
        run(.workerResponded, loop: loop)
        workerResponse = nil
    }

    /// The worker pool accepted the upgrade this connection was waiting for.
    func deliverUpgrade(_ handler: any WebSocketHandler, headers: HTTPHeaders, key: String, loop: IOLoop) {
        acceptedUpgrade = (handler, headers, key)
        run(.workerAcceptedUpgrade, loop: loop)
        acceptedUpgrade = nil
    }

    /// The stream's consumer caught up.
    func resumeBodyStream(loop: IOLoop) {
        run(.bodyConsumerCaughtUp, loop: loop)
    }

    /// Called by the loop's sweep.
    func checkTimeouts(loop: IOLoop) {
        guard let timer, loop.now >= timer else { return }
        run(.tick, loop: loop)
    }

    /// Graceful shutdown: idle connections close now, busy ones after their current response.
    func beginDraining(loop: IOLoop) {
        run(.drain, loop: loop)
    }

    /// Feeds `event` to the machine and performs what it says; a step's outcome is the next event.
    func run(_ event: Event, loop: IOLoop) {
        // The machine and the action list are locals for the whole run: no dynamic exclusivity
        // check and no copy per event. `self.machine` is written back before anything may read it.
        var machine = self.machine
        var actions = self.actions
        self.actions = []
        var next: Event? = event
        while let current = next, !isClosed {
            next = nil
            let first = actions.count
            machine.handle(current, now: loop.now, into: &actions)
            for action in actions[first...] where !isClosed {
                if case .close = action { self.machine = machine }
                if let outcome = perform(action, machine: machine, loop: loop) { next = outcome }
            }
        }
        self.machine = machine
        actions.removeAll(keepingCapacity: true)
        self.actions = actions
        // The loop's receive buffer is shared: what the parser did not use yet is kept here.
        keepFreshInput(loop: loop)
    }

    private func perform(_ action: Action, machine: HTTPConnectionMachine, loop: IOLoop) -> Event? {
        switch action {
        case .read: return read(loop: loop)
        case .parse: return webSocket == nil ? parseStep(loop: loop) : webSocketParseStep(acceptsMessages: machine.acceptsMessages, loop: loop)
        case .flush: return flush(loop: loop)
        case .discardInput: return discardInput(loop: loop)
        case .dropHeldInput:
            held.removeAll()
            freshUsed = fresh
        case .shutdownWrite:
            tls?.shutdown(to: socket)
            socket.shutdownWrite()
        case .close: loop.close(self)
        case let .setTimer(deadline): timer = deadline
        case .writeContinue: enqueue(HTTPResponseWriter.continueHead)
        case .startBodyStream: startBodyStream(loop: loop)
        case .finishBodyStream:
            bodyStream?.finish()
            bodyStream = nil
        case let .failBodyStream(error):
            bodyStream?.fail(error)
            bodyStream = nil
        case let .respondInline(keepAlive): return respondInline(keepAlive: keepAlive, loop: loop)
        case let .upgradeInline(keepAlive): return upgradeInline(keepAlive: keepAlive, loop: loop)
        case .submitToWorker: submitToWorker(loop: loop)
        case .submitUpgradeToWorker: submitUpgradeToWorker(loop: loop)
        case let .writeResponse(source, keepAlive): return writeResponse(source, keepAlive: keepAlive, loop: loop)
        case .switchToWebSocket: return switchToAcceptedWebSocket(loop: loop)
        case let .sendPong(payload): enqueueFrame(WebSocketFrame.encode(opcode: .pong, payload: payload))
        case .sendPing: enqueueFrame(WebSocketFrame.encode(opcode: .ping, payload: []))
        case let .sendClose(code, reason): sendClose(WebSocketFrame.close(code: code, reason: reason))
        case let .echoClose(code): sendClose(code.map { WebSocketFrame.close(code: $0) } ?? WebSocketFrame(opcode: .close))
        case .dropUnsentFrames: dropUnsentFrames()
        case let .appendFrame(bytes): appendFrame(bytes)
        case let .releaseFrame(count): webSocket?.connection.release(count)
        }
        return nil
    }

    // MARK: Reading

    private func read(loop: IOLoop) -> Event {
        // The next read overwrites the loop's buffer.
        keepFreshInput(loop: loop)
        let (outcome, handshakeCompleted) = loop.readOnce(socket, tls: tls, handshakeReported: &handshakeReported)
        if case let .bytes(count, _) = outcome {
            fresh = count
            freshUsed = 0
        }
        return .read(outcome, handshakeCompleted: handshakeCompleted, ciphertextQueued: tls?.hasUnsentCiphertext ?? false)
    }

    /// Reads and drops everything available (lingering; TLS input is not even decrypted).
    private func discardInput(loop: IOLoop) -> Event {
        .discarded(endOfStream: loop.discardAvailable(socket))
    }

    /// Held input for the parser: earlier input first, then what the last read brought.
    func withInput<R>(loop: IOLoop, _ body: (UnsafeRawBufferPointer) -> (consumed: Int, result: R)) -> R {
        if !held.isEmpty {
            keepFreshInput(loop: loop)
            let (consumed, result) = held.withBytes(body)
            held.removeFirst(consumed)
            return result
        }
        let (consumed, result) = loop.receiveBuffer.withBytes(count: fresh) { body(UnsafeRawBufferPointer(rebasing: $0[freshUsed...])) }
        freshUsed += consumed
        return result
    }

    private func keepFreshInput(loop: IOLoop) {
        if freshUsed < fresh, !isClosed {
            loop.receiveBuffer.withBytes(count: fresh) { held.append(UnsafeRawBufferPointer(rebasing: $0[freshUsed...])) }
        }
        fresh = 0
        freshUsed = 0
    }

    // MARK: Writing

    func enqueue(_ bytes: [UInt8]) {
        output.append(bytes)
    }

    private func flush(loop: IOLoop) -> Event {
        // Held to the end of the loop's round (IOLoop.holdsFlushes): to the machine, a socket that
        // is not writable yet. WebSocket frames and file bodies go out at once.
        if loop.holdsFlushes, webSocket == nil, fileBody == nil {
            if !flushHeld {
                flushHeld = true
                loop.holdFlush(of: self)
            }
            return .flushed(.blocked(unsent: output.unsentBytes, file: false), progressed: false)
        }
        var progressed = false
        var blocked: Event { .flushed(.blocked(unsent: output.unsentBytes, file: fileBody != nil), progressed: progressed) }
        while true {
            if output.isEmpty {
                guard fileBody != nil else { break }
                switch sendFileBody(loop: loop) {
                case .bytes: progressed = true
                case .wouldBlock: return blocked
                case .closed, .failed: return .flushed(.failed, progressed: progressed)
                }
                continue
            }
            switch output.write(to: socket, through: tls) {
            case let .bytes(written):
                progressed = true
                webSocket?.wrote(written)
            case .wouldBlock: return blocked
            case .closed, .failed: return .flushed(.failed, progressed: progressed)
            }
        }
        return .flushed(OutputQueue.flushCiphertext(tls, to: socket), progressed: progressed)
    }

    // MARK: Closing

    func markClosed(loop: IOLoop) {
        isClosed = true
        timer = nil
        bodyStream?.fail(.clientDisconnected)
        bodyStream = nil
        fileBody = nil
        held.removeAll()
        if let webSocket { webSocket.finish(code: machine.webSocket?.closeCode ?? .abnormalClosure, loop: loop) }
    }
}

/// Input read but not yet parsed, kept between reads; consumed from the front without copying.
struct HeldInput {
    private var bytes: [UInt8] = []
    private var start = 0

    var isEmpty: Bool { start == bytes.count }
    var count: Int { bytes.count - start }

    mutating func append(_ more: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: more)
    }

    mutating func removeFirst(_ count: Int) {
        start += count
        if start >= bytes.count {
            removeAll()
        } else if start >= 64 * 1024, start * 2 >= bytes.count {
            bytes.removeFirst(start)
            start = 0
        }
    }

    mutating func removeAll() {
        bytes = []
        start = 0
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }
}
