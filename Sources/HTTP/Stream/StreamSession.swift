/// A byte-stream protocol other than HTTP (the MQTT listener) served on the same epoll loops, TLS code
/// and `ConnectionTransport` as HTTP/1.1: the server accepts on the stream's own port, terminates TLS
/// when the server is configured for it, and hands each connection's decrypted bytes to a session.
///
/// A session lives on its connection's I/O thread: every call below is made there, one at a time, and
/// must not block. It answers through `StreamIO` (output to queue, reading paused or resumed, close
/// after flushing, its one deadline). Other threads reach it only by `StreamConnectionHandle.post`,
/// which arrives as `posted`.
public protocol StreamSession: AnyObject {
    /// The connection was accepted (its TLS handshake, if any, still to come).
    func opened(io: inout StreamIO)
    /// Bytes read from the peer (after TLS), in order.
    func received(_ bytes: UnsafeRawBufferPointer, io: inout StreamIO)
    /// A message another thread posted through the connection's handle.
    func posted(_ message: any Sendable, io: inout StreamIO)
    /// The deadline the session last set has passed.
    func deadlineReached(io: inout StreamIO)
    /// The server shuts down: the session says goodbye (and asks to close) in its protocol's way.
    func draining(io: inout StreamIO)
    /// The connection is gone (closed by either side, failed, or timed out); called once, last.
    func closed(now: UInt64)
}

/// Opens a session for each connection accepted on a stream listener (on the I/O thread).
public protocol StreamService: Sendable {
    func open(_ connection: StreamConnectionHandle, remoteAddress: String, now: UInt64) -> any StreamSession
}

/// What a session asks of its connection after one call, applied in order once it returns.
public struct StreamIO {
    /// Monotonic nanoseconds of the loop iteration.
    public let now: UInt64
    var output: [[UInt8]] = []
    var pause: Bool?
    var close = false
    var deadline: UInt64??
    /// `discardUnsent` was called: what was queued before this call and not begun goes.
    var discard = false
    /// Bytes queued for the peer and not yet written, this call's included.
    public private(set) var unsentBytes: Int

    public init(now: UInt64) { self.init(now: now, unsent: 0) }

    /// - Parameter unsent: bytes the connection holds unwritten when the call begins.
    init(now: UInt64, unsent: Int) {
        self.now = now
        unsentBytes = unsent
    }

    /// Queues bytes for the peer, after everything queued before.
    public mutating func send(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        output.append(bytes)
        unsentBytes += bytes.count
    }

    /// Drops every queued byte that has not begun going out (a chunk partly written stays whole, so
    /// the peer reads whole packets): for a peer that reads too slowly, before a last word and a close.
    public mutating func discardUnsent() {
        discard = true
        output = []
        unsentBytes = 0
    }

    /// Stop handing input to the session (it stays held, and reading stops once the read-ahead
    /// limit is held) until `resumeReading`.
    public mutating func pauseReading() { pause = true }
    public mutating func resumeReading() { pause = false }

    /// Close once everything queued is sent; later input is dropped.
    public mutating func closeAfterSending() { close = true }

    /// `deadlineReached` at or after `time` (monotonic ns); nil cancels. Replaces the last one.
    public mutating func setDeadline(_ time: UInt64?) { deadline = .some(time) }
}

/// A listener of the HTTP server that speaks another protocol: its port (0: ephemeral, read back
/// from `HTTPServer.streamPort(_:)`), whether it terminates TLS with the server's certificate, and
/// the service that opens its sessions.
public struct StreamListener: Sendable {
    public var port: Int
    public var tls: Bool
    public var service: any StreamService

    public init(port: Int, tls: Bool, service: any StreamService) {
        self.port = port
        self.tls = tls
        self.service = service
    }
}
