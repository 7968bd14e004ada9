/// The control state of a connection after it switched to WebSocket (RFC 6455): where the closing
/// handshake stands and the ping, pong and close timers. Frames and messages stay in the shell's
/// `WebSocketSession`; this part only decides.
struct WebSocketControl: Hashable, Sendable {
    enum Stage: Hashable, Sendable {
        case open
        /// The server sent a close frame and waits for the peer's (RFC 6455 §7.1.2).
        case closeSent
        /// Both close frames were exchanged, or the connection is being failed; no more frames are read.
        case closed
    }

    struct Timers: Hashable, Sendable {
        /// Between server pings; 0 sends none.
        var pingInterval: UInt64 = 30_000_000_000
        var pongTimeout: UInt64 = 10_000_000_000
        var closeTimeout: UInt64 = 5_000_000_000
    }

    private(set) var stage: Stage = .open
    /// The code the handler's `didClose` reports; nil until a closing handshake starts.
    private(set) var closeCode: WebSocketCloseCode?
    private(set) var nextPing: UInt64?
    private(set) var pongDeadline: UInt64?
    private(set) var closeDeadline: UInt64?

    init(timers: Timers, now: UInt64) {
        if timers.pingInterval > 0 { nextPing = now &+ timers.pingInterval }
    }

    /// The earliest timer that matters in this stage.
    var deadline: UInt64? {
        switch stage {
        case .open: earliest(nextPing, pongDeadline)
        case .closeSent: closeDeadline
        case .closed: nil
        }
    }

    /// Server-initiated close (RFC 6455 §7.1.2): true when a close frame should be sent now.
    mutating func startClose(_ code: WebSocketCloseCode, timers: Timers, now: UInt64) -> Bool {
        guard stage == .open else { return false }
        closeCode = code
        stage = .closeSent
        closeDeadline = now &+ timers.closeTimeout
        return true
    }

    /// The peer's close frame: true when it must be echoed (RFC 6455 §5.5.1), which only an open
    /// connection does; a reply to our own close just ends the handshake.
    mutating func peerClosed(_ code: WebSocketCloseCode?) -> Bool {
        defer { stage = .closed }
        guard stage == .open else { return false }
        closeCode = code ?? .noStatusReceived
        return true
    }

    /// The connection is being failed (RFC 6455 §7.1.7): no more frames are read.
    mutating func fail() {
        stage = .closed
    }

    mutating func pongReceived() {
        pongDeadline = nil
    }

    enum TimerOutcome: Equatable, Sendable {
        case none
        case sendPing
        /// The peer stopped answering pings, or never answered our close: drop it.
        case drop
    }

    mutating func tick(timers: Timers, now: UInt64) -> TimerOutcome {
        switch stage {
        case .open:
            if let pongDeadline, now >= pongDeadline { return .drop }
            guard let nextPing, now >= nextPing else { return .none }
            if pongDeadline == nil { pongDeadline = now &+ timers.pongTimeout }
            self.nextPing = now &+ timers.pingInterval
            return .sendPing
        case .closeSent:
            if let closeDeadline, now >= closeDeadline { return .drop }
            return .none
        case .closed:
            // Waiting for the close frame to flush; the write deadline bounds a stalled peer.
            return .none
        }
    }
}
