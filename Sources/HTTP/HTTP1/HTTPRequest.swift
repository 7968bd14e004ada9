/// The request line and header section (RFC 9112 §3, §5).
public struct HTTPRequestHead: Sendable {
    public var method: HTTPMethod
    /// The raw request-target as sent.
    public var target: String
    /// The target before '?'.
    public var path: String
    /// The target after '?', "" when there is none.
    public var query: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders

    public init(method: HTTPMethod, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders()) {
        self.method = method
        self.target = target
        if let mark = target.utf8.firstIndex(of: ASCII.questionMark) {
            path = String(target[..<mark])
            query = String(target[target.utf8.index(after: mark)...])
        } else {
            path = target
            query = ""
        }
        self.version = version
        self.headers = headers
    }

    init(method: HTTPMethod, target: String, path: String, query: String, version: HTTPVersion, headers: HTTPHeaders) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
    }
}

/// A complete request: head, decoded body (chunked framing removed) and the peer's IP.
public struct HTTPRequest: Sendable {
    public var head: HTTPRequestHead
    public var body: [UInt8]
    public var remoteAddress: String

    public init(head: HTTPRequestHead, body: [UInt8] = [], remoteAddress: String = "") {
        self.head = head
        self.body = body
        self.remoteAddress = remoteAddress
    }

    public var method: HTTPMethod { head.method }
    public var path: String { head.path }
    public var query: String { head.query }
    public var headers: HTTPHeaders { head.headers }
}
