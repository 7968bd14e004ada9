/// The state machine of a stream connection (a protocol other than HTTP on the same loops, e.g.
/// MQTT): `ConnectionTransport` for everything about the socket, plus what the session said last:
/// whether it takes input (`pauseReading`), its deadline, and that it wants to close. A value type
/// that does no I/O and reads no clock; `StreamConnection` is its shell. The session's protocol
/// itself (framing, state) is the session's own business: the transport hands it every held byte at
/// once, so held input is never looked at twice.
struct StreamConnectionMachine: Hashable, Sendable {
    enum Event: Hashable, Sendable {
        /// epoll's report for the socket.
        case ready(SocketReadiness)
        /// A `.read` step ended (TLS handshake progress as in `HTTPConnectionMachine`).
        case read(ReadOutcome, handshakeCompleted: Bool = false, ciphertextQueued: Bool = false)
        /// A `.discardInput` step drained the socket, or saw the end of input.
        case discarded(endOfStream: Bool)
        /// A `.flush` step ended; `progressed` when any byte went out.
        case flushed(FlushOutcome, progressed: Bool)
        /// The armed timer is due.
        case tick
        /// The server began a graceful shutdown.
        case drain
        /// The session was called (input handed over, a posted message, its deadline, the drain) and
        /// answered this.
        case sessionActed(SessionAnswer)
    }

    /// What one session call produced, as the machine needs it.
    struct SessionAnswer: Hashable, Sendable {
        /// The call was a `.deliverInput` step: every held byte is consumed.
        var consumedInput = false
        /// Bytes now queued for output in total, when the call queued any.
        var unsent: Int?
        var pause: Bool?
        var close = false
        var deadline: UInt64??
    }

    /// What the shell does. `read`, `deliverInput`, `flush`, `discardInput`, `sessionDeadline` and
    /// `sessionDrain` are steps: at most one per event, last, and their outcome is the next event.
    enum Action: Hashable, Sendable, TransportActions {
        case read
        /// Hand every held byte to the session.
        case deliverInput
        case flush
        case discardInput
        case dropHeldInput
        case shutdownWrite
        case close
        case setTimer(UInt64?)
        /// Call the session's `deadlineReached`.
        case sessionDeadline
        /// Call the session's `draining`.
        case sessionDrain
    }

    let limits: ConnectionTransport.Limits
    private(set) var transport: ConnectionTransport
    /// The session asked for no input for now.
    private(set) var readingPaused = false
    private(set) var sessionDeadline: UInt64?
    private(set) var timer: UInt64?

    init(limits: ConnectionTransport.Limits, isTLS: Bool, now: UInt64) {
        self.limits = limits
        transport = ConnectionTransport(limits: limits, isTLS: isTLS, now: now)
        timer = nextDeadline
    }

    var isClosed: Bool { transport.isClosed }

    var protocolStatus: ProtocolStatus {
        // A peer that sends without reading what it is sent waits while our output is high.
        let accepts = transport.lifecycle == .open && !transport.closeAfterFlush && !readingPaused && !transport.outputIsHigh
        return ProtocolStatus(acceptsInput: accepts, awaitsCompletion: false)
    }

    private var nextDeadline: UInt64? {
        let transportDeadline = earliest(transport.writeDeadline, transport.deadline)
        guard transport.lifecycle == .open || transport.lifecycle == .handshaking else { return transportDeadline }
        return earliest(transportDeadline, sessionDeadline)
    }

    /// Applies `event` at `now` and appends what the shell must do, in order.
    mutating func handle(_ event: Event, now: UInt64, into actions: inout [Action]) {
        guard !transport.isClosed else { return }
        var effects: ConnectionTransport.Effects = []
        var step: Action?
        switch event {
        case let .ready(readiness):
            if !transport.ready(readiness) { transport.close(into: &effects) }
        case let .read(outcome, handshakeCompleted, ciphertextQueued):
            if ciphertextQueued { transport.ciphertextQueued() }
            if handshakeCompleted { transport.handshakeCompleted() }
            if transport.readCompleted(outcome) == 0, case .bytes = outcome { actions.append(.dropHeldInput) }
            if outcome == .failed { transport.close(into: &effects) }
        case let .discarded(endOfStream):
            transport.discardCompleted(endOfStream: endOfStream, into: &effects)
        case let .flushed(outcome, progressed):
            if !transport.flushed(outcome, progressed: progressed, now: now) { transport.close(into: &effects) }
        case .tick:
            if transport.hasExpired(at: now) {
                transport.close(into: &effects)
            } else if let deadline = sessionDeadline, now >= deadline, transport.lifecycle == .open {
                sessionDeadline = nil
                step = .sessionDeadline
            }
        case .drain:
            switch transport.lifecycle {
            case .handshaking: transport.close(into: &effects)
            case .open where !transport.closeAfterFlush: step = .sessionDrain
            case .open, .lingering, .closed: break
            }
        case let .sessionActed(answer):
            sessionActed(answer, effects: &effects)
        }
        if step == nil, !transport.isClosed {
            step = transport.nextStep(protocolStatus, now: now, effects: &effects).map(Self.action)
        }
        effects.finish(step: step, deadline: nextDeadline, timer: &timer, into: &actions)
    }

    private mutating func sessionActed(_ answer: SessionAnswer, effects: inout ConnectionTransport.Effects) {
        if answer.consumedInput { transport.consumed(transport.heldInput, needsMore: true) }
        if let pause = answer.pause { readingPaused = pause }
        if let deadline = answer.deadline { sessionDeadline = deadline }
        if let unsent = answer.unsent, transport.lifecycle == .open { transport.queued(unsent: unsent, file: false) }
        if answer.close, transport.lifecycle == .open, !transport.closeAfterFlush {
            transport.closeAfterFlushing(into: &effects)
            sessionDeadline = nil
        }
    }

    private static func action(_ step: ConnectionTransport.Step) -> Action {
        switch step {
        case .read: .read
        case .parse: .deliverInput
        case .flush: .flush
        case .discardInput: .discardInput
        }
    }
}
