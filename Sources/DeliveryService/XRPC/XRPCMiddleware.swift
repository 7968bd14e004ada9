import Basics
import HTTP

/// What a request came to: the response and, for metrics and the request log, the XRPC error name
/// it carries and the caller service auth verified.
public struct XRPCResult: Sendable {
    public var response: HTTPResponse
    public var errorName: XRPCErrorName?
    public var caller: DID?
    /// The request was set aside (it waits for a DID document) and runs again later: no answer yet.
    public var isSetAside = false
    /// The handler's output comes later (`XRPCOutput.pending`): `response` is a placeholder, and
    /// what a step does with the answer goes through `then`.
    var pending: XRPCPendingResult?

    static func pending(_ pending: XRPCPendingResult) -> XRPCResult {
        var result = XRPCResult(HTTPResponse(status: 503))
        result.pending = pending
        return result
    }

    /// `step` applied to the final result: now, or once a pending one is there.
    func then(_ step: @escaping @Sendable (XRPCResult) -> XRPCResult) -> XRPCResult {
        guard let pending else { return step(self) }
        pending.addStep(step)
        return self
    }

    static var setAside: XRPCResult {
        var result = XRPCResult(HTTPResponse(status: 503))
        result.isSetAside = true
        return result
    }

    init(_ response: HTTPResponse, caller: DID? = nil) {
        self.response = response
        self.caller = caller
    }

    init(_ error: XRPCError, caller: DID? = nil) {
        response = error.response
        errorName = error.name
        self.caller = caller
    }
}

/// The rest of the chain after a middleware: the next step, and at the end the method's handler.
public typealias XRPCNext = @Sendable (HTTPRequest, XRPCRequestContext) -> XRPCResult

/// One step of the request path around the method call (docs/ARCHITECTURE.md, "The request path"):
/// it answers the request itself or passes it, with what it learned in the context, to `next`, and
/// may look at the result on the way back. The router composes the chain once, at start-up.
public protocol XRPCMiddleware: Sendable {
    func handle(_ request: HTTPRequest, _ context: XRPCRequestContext, next: XRPCNext) -> XRPCResult
}

extension Array where Element == any XRPCMiddleware {
    /// `self` in order around `last`: the first element sees the request first and the result last.
    func composed(around last: @escaping XRPCNext) -> XRPCNext {
        reversed().reduce(last) { next, middleware in
            { request, context in middleware.handle(request, context, next: next) }
        }
    }
}
