/// One connection of a stream listener (e.g. MQTT), owned by one I/O thread: the thin shell around
/// `StreamConnectionMachine`. It moves bytes between the socket (through TLS when configured) and
/// the session, and performs the machine's actions; every decision is the machine's.
final class StreamConnection {
    typealias Event = StreamConnectionMachine.Event
    typealias Action = StreamConnectionMachine.Action

    let socket: Socket
    let tls: TLSSession?
    let serial: UInt64
    let remoteAddress: String
    private(set) var machine: StreamConnectionMachine
    /// When the loop's sweep should report `.tick`, if ever.
    private(set) var timer: UInt64?
    private(set) var isClosed = false
    private var session: (any StreamSession)?
    private var actions: [Action] = []
    private var handshakeReported = false
    /// Input read but not yet handed to the session (it is paused, or the output is high).
    private var held = HeldInput()
    private var output = OutputQueue()

    init(socket: Socket, tls: TLSSession?, serial: UInt64, remoteAddress: String, limits: ConnectionTransport.Limits, now: UInt64) {
        self.socket = socket
        self.tls = tls
        self.serial = serial
        self.remoteAddress = remoteAddress
        machine = StreamConnectionMachine(limits: limits, isTLS: tls != nil, now: now)
        timer = machine.timer
    }

    /// Opens the session (after the connection is registered, so that it may post at once).
    func start(_ service: any StreamService, handle: StreamConnectionHandle, loop: IOLoop) {
        let session = service.open(handle, remoteAddress: remoteAddress, now: loop.now)
        self.session = session
        var io = StreamIO(now: loop.now, unsent: output.unsentBytes)
        session.opened(io: &io)
        run(.sessionActed(apply(io, consumedInput: false)), loop: loop)
    }

    // MARK: Events from the loop

    func handle(events: UInt32, loop: IOLoop) {
        run(.ready(SocketReadiness(epollEvents: events)), loop: loop)
    }

    /// A message from another thread for the session.
    func deliver(_ message: any Sendable, loop: IOLoop) {
        guard !isClosed, let session else { return }
        var io = StreamIO(now: loop.now, unsent: output.unsentBytes)
        session.posted(message, io: &io)
        run(.sessionActed(apply(io, consumedInput: false)), loop: loop)
    }

    func checkTimeouts(loop: IOLoop) {
        guard let timer, loop.now >= timer else { return }
        run(.tick, loop: loop)
    }

    func beginDraining(loop: IOLoop) {
        run(.drain, loop: loop)
    }

    private func run(_ event: Event, loop: IOLoop) {
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
                if let outcome = perform(action, loop: loop) { next = outcome }
            }
        }
        self.machine = machine
        actions.removeAll(keepingCapacity: true)
        self.actions = actions
    }

    private func perform(_ action: Action, loop: IOLoop) -> Event? {
        switch action {
        case .read: return read(loop: loop)
        case .deliverInput: return deliverInput(loop: loop)
        case .flush: return flush()
        case .discardInput: return discardInput(loop: loop)
        case .dropHeldInput: held.removeAll()
        case .shutdownWrite:
            tls?.shutdown(to: socket)
            socket.shutdownWrite()
        case .close: loop.close(self)
        case let .setTimer(deadline): timer = deadline
        case .sessionDeadline: return callSession(loop: loop) { $0.deadlineReached(io: &$1) }
        case .sessionDrain: return callSession(loop: loop) { $0.draining(io: &$1) }
        }
        return nil
    }

    private func callSession(loop: IOLoop, _ body: (any StreamSession, inout StreamIO) -> Void) -> Event? {
        guard let session else { return nil }
        var io = StreamIO(now: loop.now, unsent: output.unsentBytes)
        body(session, &io)
        return .sessionActed(apply(io, consumedInput: false))
    }

    /// Queues the session's output; the machine's view of what it asked.
    private func apply(_ io: StreamIO, consumedInput: Bool) -> StreamConnectionMachine.SessionAnswer {
        var answer = StreamConnectionMachine.SessionAnswer(consumedInput: consumedInput, pause: io.pause, close: io.close,
                                                           deadline: io.deadline)
        if io.discard { _ = output.dropUnstarted() }
        if (io.discard || !io.output.isEmpty), !machine.transport.closeAfterFlush {
            for bytes in io.output { output.append(bytes) }
            answer.unsent = output.unsentBytes
        }
        return answer
    }

    // MARK: Reading

    private func read(loop: IOLoop) -> Event {
        let (outcome, handshakeCompleted) = loop.readOnce(socket, tls: tls, handshakeReported: &handshakeReported)
        if case let .bytes(count, _) = outcome { loop.receiveBuffer.withBytes(count: count) { held.append($0) } }
        return .read(outcome, handshakeCompleted: handshakeCompleted, ciphertextQueued: tls?.hasUnsentCiphertext ?? false)
    }

    private func deliverInput(loop: IOLoop) -> Event? {
        guard let session else { return nil }
        var io = StreamIO(now: loop.now, unsent: output.unsentBytes)
        held.withBytes { session.received($0, io: &io) }
        held.removeAll()
        return .sessionActed(apply(io, consumedInput: true))
    }

    private func discardInput(loop: IOLoop) -> Event {
        .discarded(endOfStream: loop.discardAvailable(socket))
    }

    // MARK: Writing

    private func flush() -> Event {
        let (outcome, progressed) = output.flush(to: socket, through: tls)
        return .flushed(outcome, progressed: progressed)
    }

    // MARK: Closing

    func markClosed(now: UInt64) {
        isClosed = true
        timer = nil
        held.removeAll()
        output = OutputQueue()
        let session = self.session
        self.session = nil
        session?.closed(now: now)
    }
}
