import HTTP

/// The per-IP token bucket, before the method lookup, auth or any decoding: a flood from one address
/// costs a hash lookup. The client address is the peer's, or behind TRUSTED_PROXIES the one
/// X-Forwarded-For names.
struct IPRateLimit: XRPCMiddleware {
    let rateLimits: RateLimits
    let metrics: ServiceMetrics?

    func handle(_ request: HTTPRequest, _ context: XRPCRequestContext, next: XRPCNext) -> XRPCResult {
        if let refusal = refusal(for: request) { return XRPCResult(refusal) }
        return next(request, context)
    }

    /// 429 when the request's address is over its limit (counted under scope `ip`); shared with
    /// WebSocket upgrades.
    func refusal(for request: HTTPRequest) -> XRPCError? {
        let address = rateLimits.clientAddress(peer: request.remoteAddress,
                                               forwardedFor: request.headers.values(for: "X-Forwarded-For"))
        guard case .limited(let retryAfter) = rateLimits.checkIP(address) else { return nil }
        metrics?.recordRateLimited(scope: "ip")
        return .rateLimited(retryAfter: retryAfter)
    }
}
