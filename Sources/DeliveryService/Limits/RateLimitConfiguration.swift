/// Rate limits (docs/configuration.md: RATE_LIMIT_*, TRUSTED_PROXIES).
public struct RateLimitConfiguration: Sendable {
    /// False turns every limit off.
    public var enabled = true
    /// Per client IP, checked before authentication; nil = no IP limit.
    public var perIP: RateLimitRule? = RateLimitConfiguration.defaultIPRule
    /// Per client IP: requests whose token names a DID with no cached key, so that its document
    /// must be fetched first (random DIDs must not turn the service into an amplifier against the
    /// PLC directory); nil = no limit.
    public var perIPResolution: RateLimitRule? = RateLimitConfiguration.defaultResolutionRule
    /// Per caller DID and class, checked after authentication; a missing class is unlimited.
    public var perDID: [RateLimitClass: RateLimitRule] =
        Dictionary(uniqueKeysWithValues: RateLimitClass.allCases.map { ($0, $0.defaultRule) })
    public var trustedProxies = TrustedProxies()
    /// IPv6 clients share the per-IP bucket of their network of this prefix length
    /// (RATE_LIMIT_IPV6_PREFIX): a host may use any address of its /64 (RFC 4291 §2.5.4, RFC 8981),
    /// so one bucket per address would give it endless buckets.
    public var ipv6Prefix = 64

    public static let defaultIPRule = RateLimitRule(ratePerSecond: 100, burst: 500)
    public static let defaultResolutionRule = RateLimitRule(ratePerSecond: 2, burst: 30)

    public init() {}
}
