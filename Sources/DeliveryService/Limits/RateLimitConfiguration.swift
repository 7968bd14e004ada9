/// Rate limits (README, Configuration: RATE_LIMIT_*, TRUSTED_PROXIES).
public struct RateLimitConfiguration: Sendable {
    /// False turns every limit off.
    public var enabled = true
    /// Per client IP, checked before authentication; nil = no IP limit.
    public var perIP: RateLimitRule? = RateLimitConfiguration.defaultIPRule
    /// Per caller DID and class, checked after authentication; a missing class is unlimited.
    public var perDID: [RateLimitClass: RateLimitRule] =
        Dictionary(uniqueKeysWithValues: RateLimitClass.allCases.map { ($0, $0.defaultRule) })
    public var trustedProxies = TrustedProxies()

    public static let defaultIPRule = RateLimitRule(ratePerSecond: 100, burst: 500)

    public init() {}
}
