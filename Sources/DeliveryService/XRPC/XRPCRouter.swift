import ATProto
import Basics
import DeliveryStore
import Foundation
import HTTP
import Store
import Synchronization

/// The XRPC layer as an HTTP responder: routes `/xrpc/<nsid>` by NSID through a chain of
/// middleware it composes once (metrics and log → IP limit → method check → service auth → DID
/// limit → upload limit) to the method's handler, and turns what the handler throws into XRPC error responses.
/// Request path: socket → HTTP parser → here (NSID) → middleware → handler → Store → response writer.
public final class XRPCRouter: HTTPResponder {
    private let methods: [String: XRPCMethod]
    /// What a request path leads to: a plain route, or a method (`/xrpc/<nsid>`) with its counters.
    private enum Route: Sendable {
        case plain(@Sendable (HTTPRequest) -> HTTPResponse)
        case method(XRPCMethod, MethodMetrics?)
    }
    private let routes: PathTable<Route>
    /// The counters of NSIDs the router does not know.
    private let unknownMethodMetrics: MethodMetrics?
    private let chain: XRPCNext
    let auth: ServiceAuth
    let ipLimit: IPRateLimit?
    let uploadLimit: UploadLimit?
    let log: Log
    let metrics: ServiceMetrics?
    /// WebSocket endpoints by NSID (XRPCRouter+WebSocket.swift).
    let webSocketRoutes: [String: WebSocketRoute]
    private let requestCounter = Atomic<UInt64>(0)
    private let requestIDPrefix = String(UInt32.random(in: 0...UInt32.max), radix: 36)

    /// - Parameter serviceAuth: how tokens are verified (AUTH.md); without it, `authenticate`.
    /// - Parameter authenticate: a blocking verifier returning the caller (tests of the routing
    ///   layer only); with neither, every authenticated method is refused.
    /// - Parameter rateLimits: nil serves without limits.
    public init(methods: [XRPCMethod], plainRoutes: [String: @Sendable (HTTPRequest) -> HTTPResponse] = [:],
                serviceAuth: ServiceAuthChecks? = nil,
                authenticate: (@Sendable (String?, String) throws(AuthError) -> DID)? = nil, log: Log,
                rateLimits: RateLimits? = nil, metrics: ServiceMetrics? = nil, webSocketRoutes: [String: WebSocketRoute] = [:],
                uploadLimits: (perUser: Int, total: Int)? = nil) {
        var table: [String: XRPCMethod] = [:]
        for method in methods {
            precondition(table[method.nsid] == nil, "duplicate XRPC method \(method.nsid)")
            table[method.nsid] = method
        }
        self.methods = table
        routes = PathTable(plainRoutes.map { ($0.key, Route.plain($0.value)) }
            + table.values.map { ("/xrpc/" + $0.nsid, Route.method($0, metrics?.methodMetrics(nsid: $0.nsid))) })
        unknownMethodMetrics = metrics?.methodMetrics(nsid: ServiceMetrics.unknownMethod)
        self.log = log
        self.metrics = metrics
        self.webSocketRoutes = webSocketRoutes
        let ipLimit = rateLimits.map { IPRateLimit(rateLimits: $0, metrics: metrics) }
        self.ipLimit = ipLimit
        auth = ServiceAuth(checks: serviceAuth, verify: authenticate, ipLimit: ipLimit, metrics: metrics)
        // The chat contract's error wire sees every answer of its routes, whatever step gave it.
        var middleware: [any XRPCMiddleware] = [RequestMetrics(metrics: metrics, log: log), ChatErrorWire()]
        if let ipLimit { middleware.append(ipLimit) }
        middleware += [MethodCheck(), auth] as [any XRPCMiddleware]
        if let rateLimits {
            middleware.append(CallerRateLimit(rateLimits: rateLimits, metrics: metrics,
                                              classes: table.mapValues { RateLimitClass(nsid: $0.nsid) }))
        }
        uploadLimit = uploadLimits.map { UploadLimit(perUser: $0.perUser, total: $0.total, metrics: metrics) }
        if let uploadLimit { middleware.append(uploadLimit) }
        let errors = XRPCErrorMapping(log: log, metrics: metrics)
        chain = middleware.composed { request, context in Self.invoke(request, context, errors: errors) }
    }

    public var nsids: [String] { methods.keys.sorted() }

    /// Requests whose body is streaming to a worker now.
    public var uploadsInProgress: Int { uploadLimit?.openCount ?? 0 }

    func method(for path: String) -> XRPCMethod? {
        if case let .method(method, _)? = routes[path] { return method }
        return nil
    }

    public func maxBodySize(for head: HTTPRequestHead) -> Int {
        method(for: head.path)?.maxBodySize ?? (1 << 20)
    }

    public func mayBlock(_ head: HTTPRequestHead) -> Bool {
        if let method = method(for: head.path) { return method.mayBlock || method.auth == .required }
        return false
    }

    public func startsOnIOThread(_ head: HTTPRequestHead) -> Bool {
        guard let method = method(for: head.path) else { return false }
        return method.startsOnIOThread && method.recordsReplayInHandler && method.streamedBody == nil
    }

    /// Answers without ever setting the request aside (a token whose key is not cached gets 503,
    /// and a pending output is waited for).
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        Self.answer(dispatch(request, body: nil, resumption: nil))
    }

    /// The server's call on the worker pool: nil when the request was set aside for a DID document,
    /// or answers later through `resumption` (a pending output).
    public func respond(to request: HTTPRequest, resumption: HTTPResumption) -> HTTPResponse? {
        Self.answer(dispatch(request, body: nil, resumption: resumption), resumption: resumption)
    }

    /// The response now, waiting for a pending one.
    static func answer(_ result: XRPCResult) -> HTTPResponse {
        result.pending?.wait().response ?? result.response
    }

    /// The response now; nil when the request was set aside, or when its pending result will
    /// answer through `resumption`.
    static func answer(_ result: XRPCResult, resumption: HTTPResumption) -> HTTPResponse? {
        if let pending = result.pending {
            pending.deliver { resumption.respond($0.response) }
            pending.start()
            return nil
        }
        return result.isSetAside ? nil : result.response
    }

    /// The whole request path; `body` is set for methods whose body is streamed (XRPCRouter+Streaming).
    func dispatch(_ request: HTTPRequest, body: XRPCBodyReader?, resumption: HTTPResumption?) -> XRPCResult {
        let route = routes[request.path]
        if case let .plain(answer)? = route {
            // `_health` and friends are cheap, but not free for one address to flood.
            if let refusal = ipLimit?.refusal(for: request) { return XRPCResult(refusal) }
            return XRPCResult(answer(request))
        }
        guard case let .method(method, metrics)? = route else {
            guard request.path.hasPrefix("/xrpc/") else {
                return XRPCResult(XRPCError(404, .notFound, "no route \(request.path)"))
            }
            // An unknown NSID still passes the chain: counted, IP-limited, then 404 (MethodCheck).
            return chain(request, XRPCRequestContext(nsid: String(request.path.dropFirst(6)), id: nextRequestID(), method: nil,
                                                     metrics: unknownMethodMetrics, body: body, resumption: resumption))
        }
        return chain(request, XRPCRequestContext(nsid: method.nsid, id: nextRequestID(), method: method, metrics: metrics,
                                                 body: body, resumption: resumption))
    }

    private func nextRequestID() -> RequestID {
        RequestID(prefix: requestIDPrefix, number: requestCounter.add(1, ordering: .relaxed).newValue)
    }

    /// The end of the chain: the method's handler, with the context its declaration asks for.
    private static func invoke(_ request: HTTPRequest, _ context: XRPCRequestContext,
                               errors: XRPCErrorMapping) -> XRPCResult {
        guard let method = context.method else { return XRPCResult(.methodNotImplemented(context.nsid)) }
        if let resumption = context.resumption, resumption.isOnIOThread {
            let result = call(method, request, context, errors: errors)
            guard result.pending == nil else { return result }
            // The steps on the answer's way back may write (the token's record after a refusal):
            // they run where the result completes, so it completes on a worker.
            return .pending(XRPCPendingResult { pending in resumption.runBlocking { pending.complete(result) } })
        }
        return call(method, request, context, errors: errors)
    }

    private static func call(_ method: XRPCMethod, _ request: HTTPRequest, _ context: XRPCRequestContext,
                             errors: XRPCErrorMapping) -> XRPCResult {
        do {
            let base: XRPCContext
            if let body = context.body, method.streamedBody == nil {
                // A buffered method whose large body was streamed so that its token came first.
                var request = request
                request.body = try body.readAll(limit: method.maxBodySize)
                base = XRPCContext(request: request, nsid: context.nsid, id: context.id)
            } else {
                base = XRPCContext(request: request, nsid: context.nsid, id: context.id)
            }
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
            if case .pending(let later) = output {
                let subject = XRPCErrorMapping.Subject(context)
                return .pending(XRPCPendingResult { pending in
                    later.start { outcome in
                        do {
                            pending.complete(XRPCResult(try response(for: try outcome.get()), caller: subject.caller))
                        } catch {
                            pending.complete(errors.result(for: error, subject: subject))
                        }
                    }
                })
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
        case .pending:
            // A pending output completes with what it stands for, never with another one.
            throw XRPCError.internalError
        }
    }
}
