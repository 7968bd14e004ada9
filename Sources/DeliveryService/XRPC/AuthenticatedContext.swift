import ATProto
import Basics
import HTTP

/// What every handler sees: the request and helpers to read its parameters or JSON body. It has no
/// caller: a handler that needs one is declared authenticated and gets an `AuthenticatedContext`.
public struct XRPCContext: Sendable {
    public let request: HTTPRequest
    public let nsid: String
    public let requestID: String

    public var parameters: XRPCParameters { XRPCParameters(query: request.query) }

    /// Decodes the JSON body as `T`, mapping every failure to 400 InvalidRequest.
    public func input<T: Decodable>(_ type: T.Type = T.self) throws(XRPCError) -> T {
        try XRPCJSON.decode(T.self, from: request.body)
    }
}

/// What a handler of an authenticated method sees: the request and the caller service auth
/// verified (AUTH.md). Only this file can make one, from the DID `ServiceAuth` verified, so a handler
/// holding one holds a verified caller, and a handler without one cannot name a caller at all.
public struct AuthenticatedContext: Sendable {
    public let base: XRPCContext
    /// The caller's DID, verified by service auth for this request.
    public let caller: DID
    /// Set for methods with `recordsReplayInHandler`: the token to record in the handler's transaction.
    public let deferredReplay: DeferredReplay?

    fileprivate init(base: XRPCContext, caller: DID, deferredReplay: DeferredReplay?) {
        self.base = base
        self.caller = caller
        self.deferredReplay = deferredReplay
    }

    public var request: HTTPRequest { base.request }
    public var nsid: String { base.nsid }
    public var requestID: String { base.requestID }
    public var parameters: XRPCParameters { base.parameters }

    /// Decodes the JSON body as `T`, mapping every failure to 400 InvalidRequest.
    public func input<T: Decodable>(_ type: T.Type = T.self) throws(XRPCError) -> T {
        try base.input(T.self)
    }
}

/// One request on its way down the middleware chain: what the router found for it, and what the
/// steps before learned.
public struct XRPCRequestContext {
    public let nsid: String
    public let requestID: String
    /// The method the path names; nil for an unknown NSID (answered 404 after the IP limit).
    public let method: XRPCMethod?
    /// The body of a streamed method (XRPCRouter+Streaming); nil when it was buffered.
    let body: XRPCBodyReader?
    /// The verified caller: set by `ServiceAuth` only.
    public fileprivate(set) var caller: DID?
    /// The token whose replay check the handler records (`XRPCMethod.recordsReplayInHandler`).
    fileprivate(set) var deferredReplay: DeferredReplay?

    init(nsid: String, requestID: String, method: XRPCMethod?, body: XRPCBodyReader?) {
        self.nsid = nsid
        self.requestID = requestID
        self.method = method
        self.body = body
    }

    /// The authenticated handler's view, once `ServiceAuth` verified a caller.
    func authenticated(_ base: XRPCContext) -> AuthenticatedContext? {
        caller.map { AuthenticatedContext(base: base, caller: $0, deferredReplay: deferredReplay) }
    }
}

/// Service auth as middleware (AUTH.md): for methods that need it, verifies `Authorization` for the
/// NSID and hands the caller to the rest of the chain. A failure is a 401 (503 when the replay store
/// is down), counted by reason.
struct ServiceAuth: XRPCMiddleware {
    /// Verifies the `Authorization` header for the NSID; nil refuses every authenticated method
    /// (tests of the routing layer only).
    let verify: (@Sendable (String?, String) throws(AuthError) -> DID)?
    /// For methods that record the token's replay check in their own transaction; nil verifies them
    /// as every other method.
    let deferred: DeferredReplayAuth?
    let metrics: ServiceMetrics?

    func handle(_ request: HTTPRequest, _ context: XRPCRequestContext, next: XRPCNext) -> XRPCResult {
        guard context.method?.auth == .required else { return next(request, context) }
        let refusal: XRPCError
        if let deferred, context.method?.recordsReplayInHandler == true {
            do throws(AuthError) {
                let claim = try deferred.verify(request.headers["Authorization"], context.nsid)
                let replay = DeferredReplay(claim)
                var context = context
                context.caller = claim.did
                context.deferredReplay = replay
                var result = next(request, context)
                result.caller = context.caller
                // A token the handler did not record (it failed before its transaction committed) is
                // recorded now, and a replay answers 401 whatever the handler said.
                if !replay.isSettled { try deferred.record(claim) }
                return result
            } catch {
                refusal = XRPCError(error)
            }
        } else if let verify {
            do throws(AuthError) {
                var context = context
                context.caller = try verify(request.headers["Authorization"], context.nsid)
                var result = next(request, context)
                result.caller = context.caller
                return result
            } catch {
                refusal = XRPCError(error)
            }
        } else {
            refusal = .authenticationRequired
        }
        metrics?.authFailures.increment(refusal.name.rawValue)
        return XRPCResult(refusal)
    }
}
