import ATProto
import Basics
import DeliveryStore
import Foundation
import HTTP
import Store
import Synchronization

/// The XRPC layer as an HTTP responder: routes `/xrpc/<nsid>` by NSID through a chain of
/// middleware it composes once (metrics and log → IP limit → method check → service auth → DID
/// limit) to the method's handler, and turns what the handler throws into XRPC error responses.
/// Request path: socket → HTTP parser → here (NSID) → middleware → handler → Store → response writer.
public final class XRPCRouter: HTTPResponder {
    private let methods: [String: XRPCMethod]
    /// The same methods by request path (`/xrpc/<nsid>`): found per request without building the NSID.
    private let methodsByPath: [String: XRPCMethod]
    private let plainRoutes: [String: @Sendable (HTTPRequest) -> HTTPResponse]
    private let chain: XRPCNext
    let auth: ServiceAuth
    let ipLimit: IPRateLimit?
    let log: Log
    let metrics: ServiceMetrics?
    /// WebSocket endpoints by NSID (XRPCRouter+WebSocket.swift).
    let webSocketRoutes: [String: WebSocketRoute]
    private let requestCounter = Atomic<UInt64>(0)
    private let requestIDPrefix = String(UInt32.random(in: 0...UInt32.max), radix: 36)

    /// - Parameter authenticate: verifies `Authorization` for the NSID; nil refuses every
    ///   authenticated method (used by tests of the routing layer only).
    /// - Parameter rateLimits: nil serves without limits.
    public init(methods: [XRPCMethod], plainRoutes: [String: @Sendable (HTTPRequest) -> HTTPResponse] = [:],
                authenticate: (@Sendable (String?, String) throws(AuthError) -> DID)?, log: Log,
                rateLimits: RateLimits? = nil, metrics: ServiceMetrics? = nil, webSocketRoutes: [String: WebSocketRoute] = [:],
                deferredReplayAuth: DeferredReplayAuth? = nil) {
        var table: [String: XRPCMethod] = [:]
        for method in methods {
            precondition(table[method.nsid] == nil, "duplicate XRPC method \(method.nsid)")
            table[method.nsid] = method
        }
        self.methods = table
        methodsByPath = Dictionary(uniqueKeysWithValues: table.values.map { ("/xrpc/" + $0.nsid, $0) })
        self.plainRoutes = plainRoutes
        self.log = log
        self.metrics = metrics
        self.webSocketRoutes = webSocketRoutes
        auth = ServiceAuth(verify: authenticate, deferred: deferredReplayAuth, metrics: metrics)
        ipLimit = rateLimits.map { IPRateLimit(rateLimits: $0, metrics: metrics) }
        var middleware: [any XRPCMiddleware] = [RequestMetrics(metrics: metrics, log: log)]
        if let ipLimit { middleware.append(ipLimit) }
        middleware += [MethodCheck(), auth] as [any XRPCMiddleware]
        if let rateLimits {
            middleware.append(CallerRateLimit(rateLimits: rateLimits, metrics: metrics,
                                              classes: table.mapValues { RateLimitClass(nsid: $0.nsid) }))
        }
        let errors = XRPCErrorMapping(log: log, metrics: metrics)
        chain = middleware.composed { request, context in Self.invoke(request, context, errors: errors) }
    }

    public var nsids: [String] { methods.keys.sorted() }

    func method(for path: String) -> XRPCMethod? {
        methodsByPath[path]
    }

    public func maxBodySize(for head: HTTPRequestHead) -> Int {
        method(for: head.path)?.maxBodySize ?? (1 << 20)
    }

    public func mayBlock(_ head: HTTPRequestHead) -> Bool {
        if let method = method(for: head.path) { return method.mayBlock || method.auth == .required }
        return false
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        dispatch(request, body: nil)
    }

    /// The whole request path; `body` is set for methods whose body is streamed (XRPCRouter+Streaming).
    func dispatch(_ request: HTTPRequest, body: XRPCBodyReader?) -> HTTPResponse {
        if let route = plainRoutes[request.path] { return route(request) }
        guard request.path.hasPrefix("/xrpc/") else {
            return XRPCError(404, .notFound, "no route \(request.path)").response
        }
        let method = methodsByPath[request.path]
        let context = XRPCRequestContext(
            nsid: method?.nsid ?? String(request.path.dropFirst(6)),
            requestID: requestIDPrefix + "-" + String(requestCounter.add(1, ordering: .relaxed).newValue, radix: 36),
            method: method, body: body)
        return chain(request, context).response
    }

    /// The end of the chain: the method's handler, with the context its declaration asks for.
    private static func invoke(_ request: HTTPRequest, _ context: XRPCRequestContext,
                               errors: XRPCErrorMapping) -> XRPCResult {
        guard let method = context.method else { return XRPCResult(.methodNotImplemented(context.nsid)) }
        let base = XRPCContext(request: request, nsid: context.nsid, requestID: context.requestID)
        do {
            let output: XRPCOutput
            switch method.handler {
            case .unauthenticated(let handler):
                output = try handler(base)
            case .authenticated(let handler):
                guard let authenticated = context.authenticated(base) else { throw XRPCError.authenticationRequired }
                output = try handler(authenticated)
            case .streamed(let streamed):
                guard let authenticated = context.authenticated(base) else { throw XRPCError.authenticationRequired }
                output = try streamed.handler(authenticated, context.body ?? XRPCBodyReader(bytes: request.body))
            }
            return XRPCResult(try response(for: output), caller: context.caller)
        } catch {
            return errors.result(for: error, context: context)
        }
    }

    static func response(for output: XRPCOutput) throws -> HTTPResponse {
        var headers = HTTPHeaders()
        switch output {
        case .json(let value):
            headers.add("Content-Type", "application/json")
            return HTTPResponse(status: 200, headers: headers, body: try XRPCJSON.encode(value))
        case .bytes(let bytes, let contentType):
            headers.add("Content-Type", contentType)
            return HTTPResponse(status: 200, headers: headers, body: bytes)
        case .empty:
            return HTTPResponse(status: 200)
        case .http(let response):
            return response
        }
    }
}
