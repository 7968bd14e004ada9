import HTTP

/// The per-DID bucket of the method's class (RateLimitClass), after service auth verified the caller.
struct CallerRateLimit: XRPCMiddleware {
    let rateLimits: RateLimits
    let metrics: ServiceMetrics?
    /// Each method's class, computed once.
    let classes: [String: RateLimitClass]

    func handle(_ request: HTTPRequest, _ context: XRPCRequestContext, next: XRPCNext) -> XRPCResult {
        if let caller = context.caller, let kind = classes[context.nsid],
           case .limited(let retryAfter) = rateLimits.checkDID(caller.rawValue, class: kind) {
            metrics?.recordRateLimited(scope: kind.rawValue)
            return XRPCResult(.rateLimited(retryAfter: retryAfter), caller: caller)
        }
        return next(request, context)
    }
}
