import DeliveryStore
import Push

/// What the worker does with a push after its push service answered (docs/push.md, "Failure
/// handling"): a value type, tested without a clock or a network.
struct PushRetryPolicy: Sendable {
    /// The first retry's delay and the longest, in seconds (exponential in between).
    var baseDelay = 1.0
    var maxDelay = 300.0
    /// PUSH_DEADLINE: seconds after the event (its `enqueuedAt`) a push is given up.
    var deadline = 3600.0

    enum Decision: Equatable {
        case delivered
        /// Forget the device (its token is invalid), and the push with it.
        case removeToken
        case retry(after: Double)
        /// Give up on this push.
        case drop
    }

    /// `attempts` counts the try that just ended; `age` is the seconds since the event; `random` a
    /// value in [0, 1) for the jitter.
    func decide(_ outcome: PushOutcome, attempts: Int, age: Double, random: Double) -> Decision {
        switch outcome {
        case .delivered: return .delivered
        case .invalidToken: return .removeToken
        case .rejected: return .drop
        case .retry(_, let retryAfter):
            // Full jitter over the upper half: retries of many pushes that failed together spread out.
            let exponential = min(maxDelay, baseDelay * Double(1 << min(max(attempts - 1, 0), 20)))
            let jittered = exponential * (0.5 + 0.5 * random)
            // Retry-After is a floor: never sooner than the service asked.
            let delay = max(jittered, retryAfter ?? 0)
            return age + delay > deadline ? .drop : .retry(after: delay)
        }
    }
}
