/// Receives one WebSocket connection's events. Called on the connection's I/O thread, one call at
/// a time and in order: implementations must return quickly and hand slow work elsewhere (they may
/// keep the `WebSocketConnection` and send from any thread).
public protocol WebSocketHandler: Sendable {
    /// The 101 response is queued; the connection may be used from now on.
    func didOpen(connection: WebSocketConnection)
    func didReceive(text: String, connection: WebSocketConnection)
    func didReceive(binary: [UInt8], connection: WebSocketConnection)
    /// Called exactly once when the connection is gone: with the peer's code when it closed, the
    /// code the server sent when it closed (protocol errors, overflow, shutdown), or
    /// `.abnormalClosure` when the TCP connection ended without a close handshake.
    func didClose(code: WebSocketCloseCode, connection: WebSocketConnection)
}

extension WebSocketHandler {
    public func didOpen(connection: WebSocketConnection) {}
    public func didReceive(text: String, connection: WebSocketConnection) {}
    public func didReceive(binary: [UInt8], connection: WebSocketConnection) {}
    public func didClose(code: WebSocketCloseCode, connection: WebSocketConnection) {}
}

/// A responder's answer to a valid WebSocket opening handshake.
public enum WebSocketUpgrade: Sendable {
    /// Switch protocols (101) and hand the connection to `handler`; `headers` are added to the
    /// 101 response (e.g. Sec-WebSocket-Protocol).
    case accept(any WebSocketHandler, headers: HTTPHeaders)
    /// Answer with this response instead (e.g. 401, 403) and keep speaking HTTP.
    case reject(HTTPResponse)
    /// No answer yet: the responder set the handshake aside and resumes it (`HTTPResumption`);
    /// only from `webSocketUpgrade(for:resumption:)`.
    case setAside

    public static func accept(_ handler: any WebSocketHandler) -> WebSocketUpgrade {
        .accept(handler, headers: HTTPHeaders())
    }
}

/// Limits and timers of WebSocket connections. Times are in seconds.
public struct WebSocketConfiguration: Sendable, Equatable {
    /// Largest message (all fragments together) accepted from a client; 1009 beyond.
    public var maxMessageSize: Int
    /// Unsent output a connection may hold (queued sends plus unwritten bytes); a send beyond it
    /// fails and the connection is closed with 1008.
    public var maxBufferedOutput: Int
    /// Interval between server pings; 0 disables them.
    public var pingInterval: Double
    /// Time a ping has to be answered before the connection is dropped.
    public var pongTimeout: Double
    /// Time the peer has to answer a server close frame before the TCP connection is closed.
    public var closeTimeout: Double

    public init(maxMessageSize: Int = 1 << 20, maxBufferedOutput: Int = 1 << 20, pingInterval: Double = 30,
                pongTimeout: Double = 10, closeTimeout: Double = 5) {
        self.maxMessageSize = maxMessageSize
        self.maxBufferedOutput = maxBufferedOutput
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.closeTimeout = closeTimeout
    }
}
