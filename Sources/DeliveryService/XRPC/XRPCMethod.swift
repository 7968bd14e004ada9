import HTTP

/// What a method returns.
public enum XRPCOutput: Sendable {
    case json(any Encodable & Sendable)
    case bytes([UInt8], contentType: String)
    case empty
    /// A response the method built itself (a file body, a 206 partial response).
    case http(HTTPResponse)
    /// The output comes later, from another thread (`XRPCPendingOutput`).
    case pending(XRPCPendingOutput)
}

/// One XRPC method: its NSID, HTTP verb, limits and handler. A handler that needs the caller is
/// declared with `init` and receives an `AuthenticatedContext`; one that does not is declared with
/// `unauthenticated` and receives an `XRPCContext`, which has no caller to read.
public struct XRPCMethod: Sendable {
    public enum Kind: Sendable { case query, procedure }
    public enum Auth: Sendable { case required, none }

    public enum Handler: Sendable {
        case authenticated(@Sendable (AuthenticatedContext) throws -> XRPCOutput)
        case unauthenticated(@Sendable (XRPCContext) throws -> XRPCOutput)
        /// The body is streamed to the handler instead of buffered (XRPCRouter+Streaming).
        case streamed(XRPCStreamedBody)
    }

    public let nsid: String
    public let kind: Kind
    public let maxBodySize: Int
    /// Handlers that touch the database or the network block; they run on the worker pool.
    public let mayBlock: Bool
    public let handler: Handler
    /// The handler records the token's replay check in its own transaction (`DeferredReplay`).
    public var recordsReplayInHandler = false
    /// The request starts on the I/O thread instead of a worker (`HTTPResponder.startsOnIOThread`),
    /// saving the hand-off to a worker and back. The handler must then block only through
    /// `AuthenticatedContext.blocking` or `runBlocking`. Honoured only with `recordsReplayInHandler`,
    /// so that nothing before the handler records the token (a write), and for buffered bodies.
    public var startsOnIOThread = false

    /// Whether the router runs service auth before the handler.
    public var auth: Auth {
        if case .unauthenticated = handler { return .none }
        return .required
    }

    /// Set for methods whose body is streamed to them.
    public var streamedBody: XRPCStreamedBody? {
        if case .streamed(let body) = handler { return body }
        return nil
    }

    /// An authenticated method: the router verifies the caller before `handler` runs.
    public init(_ nsid: String, _ kind: Kind, maxBodySize: Int = 1 << 20, mayBlock: Bool = true,
                handler: @escaping @Sendable (AuthenticatedContext) throws -> XRPCOutput) {
        self.init(nsid, kind, maxBodySize: maxBodySize, mayBlock: mayBlock, handler: .authenticated(handler))
    }

    /// A method anyone may call: its handler sees no caller.
    public static func unauthenticated(_ nsid: String, _ kind: Kind, maxBodySize: Int = 1 << 20, mayBlock: Bool = true,
                                       handler: @escaping @Sendable (XRPCContext) throws -> XRPCOutput) -> XRPCMethod {
        XRPCMethod(nsid, kind, maxBodySize: maxBodySize, mayBlock: mayBlock, handler: .unauthenticated(handler))
    }

    init(_ nsid: String, _ kind: Kind, maxBodySize: Int, mayBlock: Bool, handler: Handler) {
        self.nsid = nsid
        self.kind = kind
        self.maxBodySize = maxBodySize
        self.mayBlock = mayBlock
        self.handler = handler
    }
}
