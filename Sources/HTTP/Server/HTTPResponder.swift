/// Answers requests. Called on an I/O thread (`mayBlock == false`) or on a worker thread.
public protocol HTTPResponder: Sendable {
    /// Largest body accepted for this request, decided from the head before the body is read
    /// (413 beyond). A negative value means the server's `defaultMaxBodySize`.
    func maxBodySize(for head: HTTPRequestHead) -> Int
    /// True when `respond(to:)` may block (database, network): it then runs on the worker pool,
    /// otherwise inline on the I/O thread.
    func mayBlock(_ head: HTTPRequestHead) -> Bool
    /// For a request that `mayBlock` but usually does not: `respond(to:resumption:)` is called on
    /// the I/O thread first, with `resumption.isOnIOThread` set. It must not block there: what may
    /// block goes to `resumption.runBlocking`, and a request that cannot go on is set aside
    /// (`resume` runs it again on the worker pool). It saves the hand-off to a worker and back.
    func startsOnIOThread(_ head: HTTPRequestHead) -> Bool
    func respond(to request: HTTPRequest) -> HTTPResponse
    /// Called instead of `respond(to:)` for a GET that is a valid WebSocket opening handshake
    /// (RFC 6455 §4.2.1), on the thread `mayBlock` chooses. `.accept` switches the connection to
    /// WebSocket; nil (the default) answers it as an ordinary request through `respond(to:)`.
    func webSocketUpgrade(for request: HTTPRequest) -> WebSocketUpgrade?
    /// The same on the worker pool, where the handshake may be set aside (`.setAside`, then
    /// `resumption.resume()`); the default answers through `webSocketUpgrade(for:)`.
    func webSocketUpgrade(for request: HTTPRequest, resumption: HTTPResumption) -> WebSocketUpgrade?
    /// Whether this request's body is buffered (the default) or streamed to `respond(to:body:)`.
    /// Asked only for requests that carry a body (Content-Length or chunked), instead of `maxBodySize`.
    func bodyHandling(for head: HTTPRequestHead) -> HTTPBodyHandling
    /// Answers a request whose body is streamed: always called on the worker pool (whatever
    /// `mayBlock` says) once the head arrived, with `request.body` empty; `body.read()` yields the
    /// body as it arrives. Returning before the body ended closes the connection after the response.
    func respond(to request: HTTPRequest, body: HTTPBodyStream) -> HTTPResponse
    /// What the worker pool calls: answers like `respond(to:)`, or returns nil after arranging for
    /// `resumption.resume()` to be called when the request may run (`HTTPResumption`); it then
    /// holds no worker while it waits. The default answers through `respond(to:)`.
    func respond(to request: HTTPRequest, resumption: HTTPResumption) -> HTTPResponse?
    /// The same for a request whose body is streamed; the body keeps arriving (up to the stream's
    /// buffer) while the request is set aside. The default answers through `respond(to:body:)`.
    func respond(to request: HTTPRequest, body: HTTPBodyStream, resumption: HTTPResumption) -> HTTPResponse?
}

extension HTTPResponder {
    public func maxBodySize(for head: HTTPRequestHead) -> Int { -1 }
    public func mayBlock(_ head: HTTPRequestHead) -> Bool { true }
    public func startsOnIOThread(_ head: HTTPRequestHead) -> Bool { false }
    public func webSocketUpgrade(for request: HTTPRequest) -> WebSocketUpgrade? { nil }
    public func webSocketUpgrade(for request: HTTPRequest, resumption: HTTPResumption) -> WebSocketUpgrade? {
        webSocketUpgrade(for: request)
    }
    public func bodyHandling(for head: HTTPRequestHead) -> HTTPBodyHandling { .buffered }
    public func respond(to request: HTTPRequest, resumption: HTTPResumption) -> HTTPResponse? { respond(to: request) }
    public func respond(to request: HTTPRequest, body: HTTPBodyStream, resumption: HTTPResumption) -> HTTPResponse? {
        respond(to: request, body: body)
    }

    /// Collects the body, then answers through `respond(to:)`.
    public func respond(to request: HTTPRequest, body: HTTPBodyStream) -> HTTPResponse {
        var complete = request
        do {
            complete.body = try body.readAll()
        } catch {
            return .error(status: 400, error: "InvalidRequest", message: "request body incomplete")
        }
        return respond(to: complete)
    }
}

/// A responder built from closures; handy for tests and small tools.
public struct ClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPRequest) -> HTTPResponse
    private let blocking: @Sendable (HTTPRequestHead) -> Bool
    private let bodyLimit: @Sendable (HTTPRequestHead) -> Int

    public init(
        mayBlock: @escaping @Sendable (HTTPRequestHead) -> Bool = { _ in false },
        maxBodySize: @escaping @Sendable (HTTPRequestHead) -> Int = { _ in -1 },
        respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) {
        body = respond
        blocking = mayBlock
        bodyLimit = maxBodySize
    }

    public func maxBodySize(for head: HTTPRequestHead) -> Int { bodyLimit(head) }
    public func mayBlock(_ head: HTTPRequestHead) -> Bool { blocking(head) }
    public func respond(to request: HTTPRequest) -> HTTPResponse { body(request) }
}
