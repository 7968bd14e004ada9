/// The HTTP/1.1 side of a connection (RFC 9112): which part of a request/response exchange it is
/// in and the deadline that part runs under. Requests are handled one at a time: pipelined ones wait
/// as held input until the current response is queued.
struct HTTP1Exchange: Hashable, Sendable {
    enum Phase: Hashable, Sendable {
        /// Waiting for (the rest of) a head: from accept or the end of the TLS handshake until the
        /// first request, and from the first byte of any later one (slowloris bound).
        case readingHead
        /// The head arrived and its body is coming (buffered, or streamed to a worker).
        case readingBody
        /// The request is complete and its response is being computed.
        case responding
        /// Between requests with nothing held; the idle clock runs once all output went out.
        case idle
        /// Switched to WebSocket; `WebSocketControl` runs the timers from here on.
        case upgraded
    }

    /// Who computes the answer to the request being handled.
    enum Responder: Hashable, Sendable {
        /// This thread, right now (the answer is the next event).
        case inline
        /// The worker pool (a streamed body may still be arriving).
        case worker
        /// The worker pool, deciding a WebSocket upgrade.
        case upgradeWorker
    }

    enum BodyStream: Hashable, Sendable {
        case flowing
        /// The consumer is behind: input is held back until it catches up.
        case paused
    }

    struct Timeouts: Hashable, Sendable {
        var header: UInt64 = 10_000_000_000
        var body: UInt64 = 30_000_000_000
        var idle: UInt64 = 60_000_000_000
        /// A streamed body must average this many bytes per second after its first `body` (0: no
        /// minimum), …
        var streamMinimumRate: UInt64 = 0
        /// … and end within this much time of its head (0: no limit). Neither counts the time the
        /// server itself holds the body back.
        var streamMaximum: UInt64 = 0
    }

    var phase: Phase = .readingHead
    /// When the phase's time is up (monotonic ns).
    var deadline: UInt64?
    /// A head was parsed and its request has not ended.
    var requestOpen = false
    var requestHasBody = false
    /// Whether the open request allows the connection to persist (RFC 9112 §9.3).
    var keepAlive = true
    var inFlight: Responder?
    /// Keep-alive of the request whose answer is awaited.
    var inFlightKeepAlive = false
    /// The body being streamed to a worker; nil once it ended.
    var bodyStream: BodyStream?
    /// The streamed body's minimum rate and overall limit, when configured.
    var pace: BodyPace?
    var receivedAny = false
    /// The server is shutting down: no response persists and an idle connection closes.
    var draining = false

    /// Forgets the request being read or answered (it was refused or timed out).
    mutating func abandonRequest() {
        requestOpen = false
        requestHasBody = false
        inFlight = nil
        endStream()
        deadline = nil
    }

    // MARK: A streamed body

    /// A streamed body begins: its silence timeout and its pace both run.
    mutating func startStream(now: UInt64, timeouts: Timeouts) {
        bodyStream = .flowing
        pace = BodyPace(now: now, grace: timeouts.body, rate: timeouts.streamMinimumRate, maximum: timeouts.streamMaximum)
        deadline = flowingDeadline(now: now, timeouts: timeouts)
    }

    /// Bytes arrived: the silence timeout starts again and the pace earns time.
    mutating func streamReceived(_ count: Int, now: UInt64, timeouts: Timeouts) {
        guard bodyStream == .flowing else { return }
        pace?.received(count, rate: timeouts.streamMinimumRate)
        deadline = flowingDeadline(now: now, timeouts: timeouts)
    }

    /// The consumer is behind: input is held back, and no clock runs against the client.
    mutating func pauseStream(now: UInt64) {
        guard bodyStream == .flowing else { return }
        bodyStream = .paused
        pace?.pause(now: now)
        deadline = nil
    }

    mutating func resumeStream(now: UInt64, timeouts: Timeouts) {
        guard bodyStream == .paused else { return }
        bodyStream = .flowing
        pace?.resume(now: now)
        deadline = flowingDeadline(now: now, timeouts: timeouts)
    }

    mutating func endStream() {
        bodyStream = nil
        pace = nil
    }

    /// While a streamed body flows: silence for `body`, or falling behind its pace, ends it.
    func flowingDeadline(now: UInt64, timeouts: Timeouts) -> UInt64? {
        bodyStream == .paused ? nil : earliest(now &+ timeouts.body, pace?.due)
    }

    /// Answers the request being read with an error of our own, after which the connection ends.
    mutating func refuseRequest() {
        abandonRequest()
        phase = .responding
        inFlight = .inline
    }
}

/// A streamed body's pace (issue 14): it may take `grace`, plus one second per `rate` bytes it
/// delivered, and never more than `maximum` from its head; so a client that drips a byte now and
/// then (each resetting the silence timeout) still loses the worker that waits for it. Time the
/// server holds the body back (its consumer is behind) is not counted against the client.
struct BodyPace: Hashable, Sendable {
    /// While the body flows: when it falls below the rate, and when its overall time is up.
    private(set) var deadline: UInt64?
    private(set) var limit: UInt64?
    /// While it is held back: the time both had left.
    private var leftToDeadline: UInt64?
    private var leftToLimit: UInt64?

    /// Nil when neither a rate nor a maximum is configured.
    init?(now: UInt64, grace: UInt64, rate: UInt64, maximum: UInt64) {
        guard rate > 0 || maximum > 0 else { return nil }
        limit = maximum > 0 ? now &+ maximum : nil
        deadline = rate > 0 ? Swift.min(now &+ grace, limit ?? .max) : nil
    }

    /// The earlier of the two.
    var due: UInt64? { earliest(deadline, limit) }

    mutating func received(_ count: Int, rate: UInt64) {
        guard rate > 0, let current = deadline, count > 0 else { return }
        // Credit beyond the overall limit is worth nothing.
        deadline = Swift.min(current &+ UInt64(count) &* 1_000_000_000 / rate, limit ?? .max)
    }

    mutating func pause(now: UInt64) {
        leftToDeadline = deadline.map { $0 > now ? $0 - now : 0 }
        leftToLimit = limit.map { $0 > now ? $0 - now : 0 }
        deadline = nil
        limit = nil
    }

    mutating func resume(now: UInt64) {
        deadline = leftToDeadline.map { now &+ $0 }
        limit = leftToLimit.map { now &+ $0 }
        leftToDeadline = nil
        leftToLimit = nil
    }
}
