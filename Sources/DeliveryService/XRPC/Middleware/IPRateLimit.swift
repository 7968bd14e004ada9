import HTTP

/// The per-IP token bucket, before the method lookup, auth or any decoding: a flood from one address
/// costs a hash lookup. The client address is the peer's, or behind TRUSTED_PROXIES the one
/// X-Forwarded-For names.
struct IPRateLimit: XRPCMiddleware {
    let rateLimits: RateLimits
    let metrics: ServiceMetrics?

    func handle(_ request: HTTPRequest, _ context: XRPCRequestContext, next: XRPCNext) -> XRPCResult {
        // A request run again after it was set aside for a DID document paid on its first run.
        let resumed = (context.resumption?.attempt ?? 0) > 0
        if !resumed, let refusal = refusal(for: request) { return XRPCResult(refusal) }
        return next(request, context)
    }

    /// 429 when the request's address is over its limit (counted under scope `ip`); shared with
    /// WebSocket upgrades.
    func refusal(for request: HTTPRequest) -> XRPCError? {
        guard case .limited(let retryAfter) = rateLimits.checkIP(clientAddress(request)) else { return nil }
        metrics?.recordRateLimited(scope: "ip")
        return .rateLimited(retryAfter: retryAfter)
    }

    /// 429 when the request's address has used up its budget of DID document fetches (counted under
    /// scope `did_resolution`); asked by service auth before it sets a request aside for a fetch.
    func resolutionRefusal(for request: HTTPRequest) -> XRPCError? {
        guard case .limited(let retryAfter) = rateLimits.checkDIDResolution(clientAddress(request)) else { return nil }
        metrics?.recordRateLimited(scope: "did_resolution")
        return .rateLimited(retryAfter: retryAfter)
    }

    private func clientAddress(_ request: HTTPRequest) -> String {
        rateLimits.clientAddress(peer: request.remoteAddress, forwardedFor: request.headers.values(for: "X-Forwarded-For"))
    }
}
