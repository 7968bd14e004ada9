/// What epoll reported for a connection's socket (edge-triggered: each readiness is reported once).
struct SocketReadiness: OptionSet, Hashable, Sendable {
    let rawValue: UInt8

    static let readable = SocketReadiness(rawValue: 1 << 0)
    static let writable = SocketReadiness(rawValue: 1 << 1)
    /// The peer's FIN (EPOLLRDHUP) or a hang-up (EPOLLHUP): input may end in EOF.
    static let hangUp = SocketReadiness(rawValue: 1 << 2)
    static let error = SocketReadiness(rawValue: 1 << 3)
}

/// How one read of the socket (through TLS when configured) ended.
enum ReadOutcome: Hashable, Sendable {
    /// `count` bytes; `short` when fewer than the read buffer holds.
    case bytes(Int, short: Bool)
    case wouldBlock
    /// Orderly end of the peer's stream (EOF, or TLS close_notify).
    case endOfStream
    case failed
}

/// How one flush of the output queue ended.
enum FlushOutcome: Hashable, Sendable {
    /// Everything queued (bytes, file body, TLS ciphertext) reached the socket.
    case drained
    /// The socket is full: `unsent` queued bytes remain, and the rest of a file body when `file`.
    case blocked(unsent: Int, file: Bool)
    case failed
}

/// What the protocol spoken over a transport tells it after each event.
struct ProtocolStatus: Hashable, Sendable {
    /// Input handed over now would be consumed (parsed); when false it is held back.
    var acceptsInput: Bool
    /// Work elsewhere (a worker) will still produce output: the transport neither lingers nor closes.
    var awaitsCompletion: Bool
}

/// The transport half of a connection's state machine, independent of the protocol spoken over it
/// (HTTP/1.1 and WebSocket today; any other protocol on the same epoll loops and TLS code). A value
/// type: it remembers readiness that edge-triggered epoll reports only once, the input held for the
/// protocol, the output not yet sent, close-after-flush, lingering and the transport's deadlines, and
/// decides the next socket step from them (`nextStep`). It never touches a socket.
struct ConnectionTransport: Hashable, Sendable {
    enum Lifecycle: Hashable, Sendable {
        /// TLS handshake in progress (TLS connections only).
        case handshaking
        case open
        /// Our side half-closed after a last response; input is read and dropped until the peer's EOF
        /// or the linger deadline, so the peer reads our last bytes rather than a reset.
        case lingering
        case closed
    }

    struct Limits: Hashable, Sendable {
        /// Reading stops once this much input waits for a protocol that does not accept it.
        var readAheadLimit = 64 * 1024
        /// Unsent output from which a protocol stops producing more (pipelined requests wait).
        var outputHighWater = 1 << 20
        /// Time unsent output may go without progress.
        var writeTimeout: UInt64 = 60_000_000_000
        /// Time a TLS handshake may take, from accept.
        var handshakeTimeout: UInt64 = 10_000_000_000
        /// How long a lingering close drains input.
        var lingerTime: UInt64 = 2_000_000_000
    }

    /// Socket steps; the I/O shell performs them and reports the outcome as the next event.
    enum Step: Hashable, Sendable {
        /// One read into the loop's buffer (the TLS handshake progresses inside reads).
        case read
        /// Hand held input to the protocol's parser (one parser step).
        case parse
        /// Write queued output until drained or the socket is full.
        case flush
        /// Read and drop everything available (lingering).
        case discardInput
    }

    /// Effects the shell performs without reporting back, in this order.
    struct Effects: OptionSet, Hashable, Sendable {
        let rawValue: UInt8

        /// Forget held input: it will never be parsed.
        static let dropHeldInput = Effects(rawValue: 1 << 0)
        /// Send TLS close_notify and shut down the write side (lingering begins).
        static let shutdownWrite = Effects(rawValue: 1 << 1)
        static let close = Effects(rawValue: 1 << 2)
    }

    let limits: Limits
    let isTLS: Bool
    private(set) var lifecycle: Lifecycle
    /// The socket may hold unread input: an edge was reported and no read has seen EAGAIN since.
    private(set) var readable = false
    /// The socket took our last write in full; false after EAGAIN until epoll reports writability.
    private(set) var writable = true
    /// The peer's FIN was reported: read on to EOF even after a short read.
    private(set) var peerHungUp = false
    /// A read returned EOF.
    private(set) var peerClosed = false
    /// Bytes read and not yet consumed by the protocol.
    private(set) var heldInput = 0
    /// Held input the protocol has not looked at since it last said it needs more.
    private(set) var inputUnexamined = false
    /// Queued output bytes as last reported (a lower bound while `flushPending`).
    private(set) var unsent = 0
    /// A file body is still being sent after the queued bytes.
    private(set) var fileBody = false
    /// Output (bytes, file, TLS ciphertext) waits for a flush.
    private(set) var flushPending = false
    /// The protocol ended the connection: close once everything queued is sent.
    private(set) var closeAfterFlush = false
    /// Unsent output must make progress by then (monotonic ns).
    private(set) var writeDeadline: UInt64?
    /// End of the TLS handshake or of the linger period.
    private(set) var deadline: UInt64?

    init(limits: Limits, isTLS: Bool, now: UInt64) {
        self.limits = limits
        self.isTLS = isTLS
        lifecycle = isTLS ? .handshaking : .open
        deadline = isTLS ? now &+ limits.handshakeTimeout : nil
    }

    var isClosed: Bool { lifecycle == .closed }
    var hasUnsentOutput: Bool { flushPending }
    /// Unsent output at or past the high-water mark, or a file body still going out.
    var outputIsHigh: Bool { fileBody || unsent >= limits.outputHighWater }

    /// Reading is held back: the socket may have input but the protocol cannot take more.
    func isReadingPaused(_ status: ProtocolStatus) -> Bool {
        !status.acceptsInput && heldInput >= limits.readAheadLimit
    }

    // MARK: Events

    /// epoll's report; false when the socket failed and the connection must close.
    mutating func ready(_ readiness: SocketReadiness) -> Bool {
        if readiness.contains(.error) { return false }
        if readiness.contains(.hangUp) {
            peerHungUp = true
            readable = true
        }
        if readiness.contains(.readable) { readable = true }
        if readiness.contains(.writable) { writable = true }
        return true
    }

    mutating func handshakeCompleted() {
        guard lifecycle == .handshaking else { return }
        lifecycle = .open
        deadline = nil
    }

    /// TLS produced ciphertext (handshake messages, tickets, alerts) that still has to go out.
    mutating func ciphertextQueued() {
        flushPending = true
    }

    /// A read ended; returns how many bytes are now held for the protocol (0 when none or dropped).
    mutating func readCompleted(_ outcome: ReadOutcome) -> Int {
        switch outcome {
        case let .bytes(count, short):
            // A short plain read drained the socket and new data raises a new edge; after the peer's
            // FIN (an edge already consumed) read on to see the EOF; a TLS record is shorter than the
            // buffer without the socket being drained.
            if short, !peerHungUp, !isTLS { readable = false }
            // Input after the protocol ended the connection is never parsed.
            guard lifecycle == .open, !closeAfterFlush else { return 0 }
            heldInput += count
            inputUnexamined = true
            return count
        case .wouldBlock:
            readable = false
        case .endOfStream:
            readable = false
            peerClosed = true
        case .failed:
            readable = false
        }
        return 0
    }

    /// A lingering drain read everything available (or saw the end of input).
    mutating func discardCompleted(endOfStream: Bool, into effects: inout Effects) {
        readable = false
        if endOfStream { close(into: &effects) }
    }

    /// The protocol's parser consumed `count` held bytes; `needsMore` when it cannot go on without more.
    mutating func consumed(_ count: Int, needsMore: Bool) {
        heldInput = Swift.max(0, heldInput - count)
        inputUnexamined = !needsMore
    }

    /// The protocol queued output and reports the queue's size.
    mutating func queued(unsent: Int, file: Bool) {
        self.unsent = unsent
        fileBody = file
        flushPending = true
    }

    /// The protocol queued output whose size does not matter for back-pressure (frames, interim heads).
    mutating func queuedSmall() {
        flushPending = true
    }

    /// A flush ended; false when the socket failed and the connection must close.
    mutating func flushed(_ outcome: FlushOutcome, progressed: Bool, now: UInt64) -> Bool {
        switch outcome {
        case .drained:
            unsent = 0
            fileBody = false
            flushPending = false
            writable = true
            writeDeadline = nil
        case let .blocked(unsent, file):
            self.unsent = unsent
            fileBody = file
            flushPending = true
            writable = false
            // The write deadline measures time without progress.
            if progressed || writeDeadline == nil { writeDeadline = now &+ limits.writeTimeout }
        case .failed:
            return false
        }
        return true
    }

    /// The protocol ended the connection: what is queued goes out, later input is dropped.
    mutating func closeAfterFlushing(into effects: inout Effects) {
        closeAfterFlush = true
        dropHeldInput(into: &effects)
    }

    mutating func dropHeldInput(into effects: inout Effects) {
        inputUnexamined = false
        guard heldInput > 0 else { return }
        heldInput = 0
        effects.insert(.dropHeldInput)
    }

    /// A deadline of the transport passed (write progress, handshake, linger).
    func hasExpired(at now: UInt64) -> Bool {
        if let writeDeadline, now >= writeDeadline { return true }
        if let deadline, now >= deadline { return true }
        return false
    }

    mutating func markClosed() {
        lifecycle = .closed
        readable = false
        heldInput = 0
        inputUnexamined = false
        flushPending = false
        writeDeadline = nil
        deadline = nil
    }

    // MARK: Deciding the next step

    /// The next socket step given what the protocol says, after effects it implies (lingering,
    /// closing). Every decision is made from state, never from which event arrived: output that
    /// drained inside any flush lets held input be parsed, whatever path the flush was on.
    mutating func nextStep(_ status: ProtocolStatus, now: UInt64, effects: inout Effects) -> Step? {
        switch lifecycle {
        case .closed:
            return nil
        case .lingering:
            return readable ? .discardInput : nil
        case .handshaking:
            if peerClosed {
                close(into: &effects)
                return nil
            }
            if flushPending, writable { return .flush }
            return readable ? .read : nil
        case .open:
            if status.acceptsInput, inputUnexamined, !closeAfterFlush { return .parse }
            if flushPending, writable { return .flush }
            if !flushPending, !status.awaitsCompletion {
                if closeAfterFlush {
                    beginLingering(now: now, into: &effects)
                    return lifecycle == .lingering && readable ? .discardInput : nil
                }
                if peerClosed {
                    // Nothing more can come in and everything owed went out.
                    close(into: &effects)
                    return nil
                }
            }
            if readable, !peerClosed, !isReadingPaused(status) { return .read }
            return nil
        }
    }

    mutating func close(into effects: inout Effects) {
        guard lifecycle != .closed else { return }
        markClosed()
        effects.insert(.close)
    }

    private mutating func beginLingering(now: UInt64, into effects: inout Effects) {
        if peerClosed {
            close(into: &effects)
            return
        }
        lifecycle = .lingering
        deadline = now &+ limits.lingerTime
        writeDeadline = nil
        effects.insert(.shutdownWrite)
    }
}

/// The actions a connection machine derives from the transport's effects (each machine's `Action`
/// has these cases).
protocol TransportActions {
    static var dropHeldInput: Self { get }
    static var shutdownWrite: Self { get }
    static var close: Self { get }
    static func setTimer(_ deadline: UInt64?) -> Self
}

extension ConnectionTransport.Effects {
    /// Appends, in order, what the effects ask, then (unless the connection closed) the timer if
    /// `deadline` moved and the step. The end of every machine's `handle`.
    func finish<Action: TransportActions>(step: Action?, deadline: UInt64?, timer: inout UInt64?, into actions: inout [Action]) {
        if contains(.dropHeldInput) { actions.append(.dropHeldInput) }
        if contains(.shutdownWrite) { actions.append(.shutdownWrite) }
        if contains(.close) {
            timer = nil
            actions.append(.close)
            return
        }
        if deadline != timer {
            timer = deadline
            actions.append(.setTimer(deadline))
        }
        if let step { actions.append(step) }
    }
}

/// The earlier of two optional deadlines (nil: none).
func earliest(_ a: UInt64?, _ b: UInt64?) -> UInt64? {
    guard let a else { return b }
    guard let b else { return a }
    return Swift.min(a, b)
}
