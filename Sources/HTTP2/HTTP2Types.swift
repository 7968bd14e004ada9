/// One request on an HTTP/2 connection (RFC 9113 §8.3.1): `:method`, `:path` and header fields
/// (names lower-case on the wire), a body, and how long the caller waits for the answer.
public struct HTTP2Request: Sendable {
    public var method: String
    public var path: String
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Seconds from `send` until the request fails with `.timeout`, queued or in flight.
    public var timeout: Double

    public init(method: String = "POST", path: String, headers: [(String, String)] = [], body: [UInt8] = [], timeout: Double) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// Why a request got no response. Whether the server may have processed it matters to the caller:
/// `refused` means it did not (RFC 9113 §8.7), the others leave it open.
public enum HTTP2Error: Error, Sendable, Equatable {
    /// No connection could be made (name lookup, connect, TLS, or a server without ALPN h2).
    case connectFailed(String)
    /// The request's timeout passed, queued or in flight.
    case timeout
    /// The connection broke with the request in flight.
    case connectionLost(String)
    /// The server will not process it (GOAWAY below its stream, REFUSED_STREAM).
    case refused
    /// The server reset the stream with this HTTP/2 error code.
    case reset(UInt32)
    /// The response broke a limit (header list, body size) or the protocol.
    case malformedResponse(String)
    /// The client was shut down.
    case shutdown
}
