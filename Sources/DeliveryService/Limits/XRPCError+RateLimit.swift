extension XRPCError {
    /// 429 with `Retry-After` in whole seconds (RFC 9110 §10.2.3), at least 1.
    public static func rateLimited(retryAfter seconds: Int) -> XRPCError {
        let seconds = max(1, seconds)
        return XRPCError(429, .rateLimitExceeded, "too many requests, retry in \(seconds) s",
                         headers: [("Retry-After", String(seconds))])
    }
}
