/// The pause before retrying a transaction that hit a serialization failure or deadlock:
/// exponential from `base`, capped at `cap`, with jitter so that the colliding transactions
/// do not retry in lockstep.
struct RetryBackoff: Sendable {
    var base: Double = 0.005
    var cap: Double = 0.2

    /// The upper bound for retry `attempt` (1 for the first retry).
    func ceiling(attempt: Int) -> Double {
        let doublings = min(max(attempt - 1, 0), 30)
        return min(cap, base * Double(1 << doublings))
    }

    /// A delay drawn uniformly from the upper half of the ceiling.
    func delay(attempt: Int, using generator: inout some RandomNumberGenerator) -> Double {
        let ceiling = ceiling(attempt: attempt)
        return Double.random(in: (ceiling / 2)...ceiling, using: &generator)
    }
}
