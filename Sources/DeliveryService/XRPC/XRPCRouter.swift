import ATProto
import DeliveryStore
import Foundation
import HTTP
import Store
import Synchronization

/// The XRPC layer as an HTTP responder: routes `/xrpc/<nsid>` by NSID, checks the HTTP verb, applies
/// the per-IP rate limit, runs service auth, applies the per-DID limit, calls the method and turns
/// thrown errors into XRPC error responses; counts and logs every request.
/// Request path: socket → HTTP parser → here (NSID) → IP limit → auth → DID limit → handler → Store → response writer.
public final class XRPCRouter: HTTPResponder {
    private let methods: [String: XRPCMethod]
    /// The same methods by request path (`/xrpc/<nsid>`): found per request without building the NSID.
    private let methodsByPath: [String: XRPCMethod]
    private let limitClasses: [String: RateLimitClass]
    private let plainRoutes: [String: @Sendable (HTTPRequest) -> HTTPResponse]
    let authenticate: (@Sendable (String?, String) throws(AuthError) -> DID)?
    let deferredReplayAuth: DeferredReplayAuth?
    let log: Log
    let rateLimits: RateLimits?
    let metrics: ServiceMetrics?
    /// WebSocket endpoints by NSID (XRPCRouter+WebSocket.swift).
    let webSocketRoutes: [String: WebSocketRoute]
    private let requestCounter = Atomic<UInt64>(0)
    private let requestIDPrefix = String(UInt32.random(in: 0...UInt32.max), radix: 36)

    /// Methods whose success applies a commit (one epoch each); their 4xx answers are commit rejections.
    static let commitMethods: Set<String> = [
        "blue.catbird.mls.addMembers", "blue.catbird.mls.removeMember", "blue.catbird.mls.commitGroupChange",
        "blue.catbird.mls.processExternalCommit",
    ]

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
        limitClasses = table.mapValues { RateLimitClass(nsid: $0.nsid) }
        self.plainRoutes = plainRoutes
        self.authenticate = authenticate
        self.deferredReplayAuth = deferredReplayAuth
        self.log = log
        self.rateLimits = rateLimits
        self.metrics = metrics
        self.webSocketRoutes = webSocketRoutes
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

    /// A response and the XRPC error name it carries, if any, for metrics and the request log.
    private struct Outcome {
        var response: HTTPResponse
        var errorName: String? = nil
        var caller: DID? = nil

        init(_ response: HTTPResponse) { self.response = response }
        init(_ error: XRPCError, caller: DID? = nil) {
            response = error.response
            errorName = error.name
            self.caller = caller
        }
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        dispatch(request, body: nil)
    }

    /// The whole request path; `body` is set for methods whose body is streamed (XRPCRouter+Streaming).
    func dispatch(_ request: HTTPRequest, body: XRPCBodyReader?) -> HTTPResponse {
        if let route = plainRoutes[request.path] { return route(request) }
        guard request.path.hasPrefix("/xrpc/") else {
            return XRPCError(404, "NotFound", "no route \(request.path)").response
        }
        let requestID = requestIDPrefix + "-" + String(requestCounter.add(1, ordering: .relaxed).newValue, radix: 36)
        let method = methodsByPath[request.path]
        let nsid = method?.nsid ?? String(request.path.dropFirst(6))
        let start = DispatchTime.now().uptimeNanoseconds
        let outcome: Outcome
        // Before the method lookup, auth or any decoding: a flood from one address costs a hash lookup.
        if let rateLimits, case .limited(let retryAfter) = rateLimits.checkIP(rateLimits.clientAddress(
            peer: request.remoteAddress, forwardedFor: request.headers.values(for: "X-Forwarded-For"))) {
            metrics?.recordRateLimited(scope: "ip")
            outcome = Outcome(.rateLimited(retryAfter: retryAfter))
        } else if let method {
            outcome = run(method, request: request, body: body, requestID: requestID)
        } else {
            outcome = Outcome(.methodNotImplemented(nsid))
        }
        let elapsed = DispatchTime.now().uptimeNanoseconds &- start
        let status = outcome.response.status
        if let metrics {
            metrics.recordRequest(nsid: nsid, status: status, nanoseconds: elapsed)
            if Self.commitMethods.contains(nsid) {
                if status == 200 {
                    metrics.epochsAdvanced.increment()
                } else if (400..<500).contains(status), status != 401, status != 429, let name = outcome.errorName {
                    metrics.commitRejections.increment(name)
                }
            }
        }
        if method != nil {
            RequestLogEntry(requestID: requestID, nsid: nsid, status: status, errorName: outcome.errorName,
                            durationMicros: elapsed / 1000, caller: outcome.caller?.rawValue).write(to: log)
        }
        return outcome.response
    }

    private func run(_ method: XRPCMethod, request: HTTPRequest, body: XRPCBodyReader?, requestID: String) -> Outcome {
        let expected: HTTPMethod = method.kind == .query ? .get : .post
        guard request.method == expected || (expected == .get && request.method == .head) else {
            return Outcome(XRPCError(405, "InvalidRequest", "\(method.nsid) takes \(expected.rawValue)"))
        }
        var deferred: DeferredReplay?
        let outcome = runMethod(method, request: request, body: body, requestID: requestID, deferred: &deferred)
        // A token whose handler did not record it (it failed before its transaction committed) is
        // recorded now, and a replay answers 401 whatever the handler said.
        guard let deferred, !deferred.isSettled, let deferredReplayAuth else { return outcome }
        do throws(AuthError) {
            try deferredReplayAuth.record(deferred.claim)
            return outcome
        } catch {
            return authFailure(error)
        }
    }

    private func authFailure(_ error: AuthError) -> Outcome {
        metrics?.authFailures.increment(error.name)
        var headers = [("WWW-Authenticate", "Bearer")]
        if error.status == 503 { headers = [("Retry-After", "1")] }
        return Outcome(XRPCError(error.status, error.name, error.message, headers: headers))
    }

    private func runMethod(_ method: XRPCMethod, request: HTTPRequest, body: XRPCBodyReader?, requestID: String,
                           deferred: inout DeferredReplay?) -> Outcome {
        var caller: DID?
        do {
            if method.auth == .required {
                if method.recordsReplayInHandler, let deferredReplayAuth {
                    let claim = try deferredReplayAuth.verify(request.headers["Authorization"], method.nsid)
                    deferred = DeferredReplay(claim)
                    caller = claim.did
                } else {
                    guard let authenticate else { throw XRPCError(401, "AuthenticationRequired", "authentication required") }
                    caller = try authenticate(request.headers["Authorization"], method.nsid)
                }
            }
            if let rateLimits, let caller, let kind = limitClasses[method.nsid],
               case .limited(let retryAfter) = rateLimits.checkDID(caller.rawValue, class: kind) {
                metrics?.recordRateLimited(scope: kind.rawValue)
                throw XRPCError.rateLimited(retryAfter: retryAfter)
            }
            var context = XRPCContext(request: request, nsid: method.nsid, requestID: requestID, caller: caller)
            context.deferredReplay = deferred
            let output = if let streamed = method.streamedBody {
                try streamed.handler(context, body ?? XRPCBodyReader(bytes: request.body))
            } else {
                try method.handler(context)
            }
            var outcome = Outcome(try Self.response(for: output))
            outcome.caller = caller
            return outcome
        } catch let error as XRPCError {
            if error.status == 401 { metrics?.authFailures.increment(error.name) }
            return Outcome(error, caller: caller)
        } catch let error as AuthError {
            return authFailure(error)
        } catch let error as StoreError {
            return Outcome(storeFailure(error, requestID: requestID, nsid: method.nsid), caller: caller)
        } catch let error as DeliveryStoreError {
            if let xrpc = error.xrpcError {
                // A token found replayed inside the handler's transaction (DeferredReplay).
                if xrpc.status == 401 { metrics?.authFailures.increment(xrpc.name) }
                return Outcome(xrpc, caller: caller)
            }
            guard case .database(let storeError) = error else { return Outcome(.internalError, caller: caller) }
            return Outcome(storeFailure(storeError, requestID: requestID, nsid: method.nsid), caller: caller)
        } catch {
            log.error("unhandled error", ["id": requestID, "method": method.nsid, "error": String(describing: type(of: error))])
            return Outcome(.internalError, caller: caller)
        }
    }

    private func storeFailure(_ error: StoreError, requestID: String, nsid: String) -> XRPCError {
        switch error {
        case .unavailable, .poolTimeout:
            log.warning("database unavailable", ["id": requestID, "method": nsid])
            return .unavailable
        default:
            // A server message can quote an offending value; the SQLSTATE alone says what failed.
            let detail = if case .queryFailed(let state, _) = error { "SQL error \(state)" } else { "\(error)" }
            log.error("database error", ["id": requestID, "method": nsid, "error": detail])
            return .internalError
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
