/// One overall deadline for a request, on the monotonic clock, so that DNS, connect, TLS and
/// every read share the same time budget.
struct HTTPClientDeadline: Sendable {
    let instant: ContinuousClock.Instant

    init(seconds: Double) {
        instant = ContinuousClock.now.advanced(by: .nanoseconds(Int64(max(0, seconds) * 1e9)))
    }

    /// Milliseconds left, for poll(2); throws once the deadline has passed.
    func remainingMilliseconds() throws(HTTPClientError) -> Int32 {
        let left = ContinuousClock.now.duration(to: instant)
        guard left > .zero else { throw .timeout }
        let (seconds, attoseconds) = left.components
        let millis = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(1, millis))
    }
}
