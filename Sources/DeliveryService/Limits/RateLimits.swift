import Basics
import Dispatch

/// The service's limiters: one keyed by client IP (before auth), one keyed by client IP for DID
/// document fetches, one per method class keyed by DID.
public final class RateLimits: Sendable {
    public let configuration: RateLimitConfiguration
    private let ipLimiter: RateLimiter?
    private let resolutionLimiter: RateLimiter?
    private let didLimiters: [RateLimitClass: RateLimiter]
    private let clock: @Sendable () -> UInt64

    /// - Parameter clock: monotonic nanoseconds; tests pass their own.
    public init(configuration: RateLimitConfiguration,
                clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.configuration = configuration
        self.clock = clock
        let enabled = configuration.enabled
        ipLimiter = enabled ? configuration.perIP.map { RateLimiter(rule: $0) } : nil
        resolutionLimiter = enabled ? configuration.perIPResolution.map { RateLimiter(rule: $0) } : nil
        didLimiters = enabled ? configuration.perDID.mapValues { RateLimiter(rule: $0) } : [:]
    }

    /// The address requests are limited by: the peer, or the forwarded client behind trusted proxies.
    public func clientAddress(peer: String, forwardedFor: [String]) -> String {
        configuration.trustedProxies.clientAddress(peer: peer, forwardedFor: forwardedFor)
    }

    /// Takes a token from the bucket of `address` (`ipBucket`).
    public func checkIP(_ address: String) -> RateLimitDecision {
        guard let ipLimiter else { return .allowed }
        return ipLimiter.take(ipBucket(address), now: clock())
    }

    /// The per-IP bucket's key for a client address: an IPv4 address's own, an IPv6 address's
    /// network of `ipv6Prefix` bits (what cannot be parsed, as it is).
    public func ipBucket(_ address: String) -> String {
        IPAddress.clientKey(address, ipv6Prefix: configuration.ipv6Prefix)
    }

    /// One DID document fetch on behalf of `address` (a token whose issuer has no cached key), from
    /// the budget of its `ipBucket`: an IPv6 client rotating through its /64 has one budget, not one
    /// per address.
    public func checkDIDResolution(_ address: String) -> RateLimitDecision {
        resolutionLimiter?.take(ipBucket(address), now: clock()) ?? .allowed
    }

    public func checkDID(_ did: String, class kind: RateLimitClass) -> RateLimitDecision {
        didLimiters[kind]?.take(did, now: clock()) ?? .allowed
    }

    /// Buckets held in memory across every limiter.
    public var keyCount: Int {
        (ipLimiter?.keyCount ?? 0) + (resolutionLimiter?.keyCount ?? 0) + didLimiters.values.reduce(0) { $0 + $1.keyCount }
    }
}
