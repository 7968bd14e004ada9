/// A token-bucket rule: `ratePerSecond` tokens refill continuously up to `burst`; a request takes one.
public struct RateLimitRule: Sendable, Equatable {
    public var ratePerSecond: Double
    public var burst: Double

    public init(ratePerSecond: Double, burst: Double) {
        precondition(ratePerSecond > 0 && burst >= 1)
        self.ratePerSecond = ratePerSecond
        self.burst = burst
    }

    /// `"rate,burst"` (rate per second; `"20/s,100"` is accepted too); nil when malformed, not
    /// positive, or the burst is below one request.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(\.trimmingSpaces)
        guard parts.count == 2 else { return nil }
        var rateText = parts[0]
        if rateText.hasSuffix("/s") { rateText = rateText.dropLast(2) }
        guard let rate = Double(rateText), let burst = Double(parts[1]),
              rate.isFinite, burst.isFinite, rate > 0, rate <= 1e9, burst >= 1, burst <= 1e9 else { return nil }
        self.init(ratePerSecond: rate, burst: burst)
    }
}

/// One key's bucket. Time is monotonic nanoseconds.
struct TokenBucket: Sendable {
    var tokens: Double
    var updated: UInt64

    init(rule: RateLimitRule, now: UInt64) {
        tokens = rule.burst
        updated = now
    }

    /// A full bucket behaves exactly like an absent one, so it may be forgotten.
    func isFull(rule: RateLimitRule, at now: UInt64) -> Bool {
        now >= updated && tokens + Double(now - updated) / 1e9 * rule.ratePerSecond >= rule.burst
    }

    /// Takes one token, or answers how many whole seconds until one is available (at least 1).
    mutating func take(rule: RateLimitRule, now: UInt64) -> RateLimitDecision {
        if now > updated {
            tokens = min(rule.burst, tokens + Double(now - updated) / 1e9 * rule.ratePerSecond)
            updated = now
        }
        if tokens >= 1 {
            tokens -= 1
            return .allowed
        }
        let seconds = ((1 - tokens) / rule.ratePerSecond).rounded(.up)
        return .limited(retryAfter: max(1, Int(min(seconds, 86_400))))
    }
}

public enum RateLimitDecision: Sendable, Equatable {
    case allowed
    case limited(retryAfter: Int)
}
