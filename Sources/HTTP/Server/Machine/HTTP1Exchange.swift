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
    var receivedAny = false
    /// The server is shutting down: no response persists and an idle connection closes.
    var draining = false

    /// Forgets the request being read or answered (it was refused or timed out).
    mutating func abandonRequest() {
        requestOpen = false
        requestHasBody = false
        inFlight = nil
        bodyStream = nil
        deadline = nil
    }

    /// Answers the request being read with an error of our own, after which the connection ends.
    mutating func refuseRequest() {
        abandonRequest()
        phase = .responding
        inFlight = .inline
    }
}
