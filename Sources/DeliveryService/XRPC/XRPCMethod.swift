import ATProto
import HTTP

/// What a method handler sees: the request, the verified caller (for authenticated methods), and
/// helpers to read its parameters or JSON body.
public struct XRPCContext: Sendable {
    public let request: HTTPRequest
    public let nsid: String
    public let requestID: String
    /// The caller's DID, verified by service auth. Nil only for methods that need no auth.
    public let caller: DID?

    /// Set for methods with `recordsReplayInHandler`: the token to record in the handler's transaction.
    public var deferredReplay: DeferredReplay? = nil

    /// The verified caller; only methods declared `auth: .required` are routed with one.
    public var verifiedCaller: DID {
        get throws(XRPCError) {
            guard let caller else { throw XRPCError(401, "AuthenticationRequired", "authentication required") }
            return caller
        }
    }

    public var parameters: XRPCParameters { XRPCParameters(query: request.query) }

    /// Decodes the JSON body as `T`, mapping every failure to 400 InvalidRequest.
    public func input<T: Decodable>(_ type: T.Type = T.self) throws(XRPCError) -> T {
        try XRPCJSON.decode(T.self, from: request.body)
    }
}

/// What a method returns.
public enum XRPCOutput: Sendable {
    case json(any Encodable & Sendable)
    case bytes([UInt8], contentType: String)
    case empty
    /// A response the method built itself (a file body, a 206 partial response).
    case http(HTTPResponse)
}

/// One XRPC method: its NSID, HTTP verb, limits and handler.
public struct XRPCMethod: Sendable {
    public enum Kind: Sendable { case query, procedure }
    public enum Auth: Sendable { case required, none }

    public let nsid: String
    public let kind: Kind
    public let auth: Auth
    public let maxBodySize: Int
    /// Handlers that touch the database or the network block; they run on the worker pool.
    public let mayBlock: Bool
    public let handler: @Sendable (XRPCContext) throws -> XRPCOutput
    /// Set for methods whose body is streamed to them instead of buffered (see XRPCRouter+Streaming).
    public var streamedBody: XRPCStreamedBody? = nil
    /// The handler records the token's replay check in its own transaction (`DeferredReplay`).
    public var recordsReplayInHandler = false

    public init(_ nsid: String, _ kind: Kind, auth: Auth = .required, maxBodySize: Int = 1 << 20,
                mayBlock: Bool = true, handler: @escaping @Sendable (XRPCContext) throws -> XRPCOutput) {
        self.nsid = nsid
        self.kind = kind
        self.auth = auth
        self.maxBodySize = maxBodySize
        self.mayBlock = mayBlock
        self.handler = handler
    }
}
