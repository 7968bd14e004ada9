/// Request durations in fixed buckets (seconds), exposed as a Prometheus histogram. Each observation
/// is three atomic adds: its bucket, the count and the sum (kept in microseconds).
public final class LatencyHistogram: Sendable {
    /// Upper bounds in seconds; `+Inf` is implied.
    public static let bounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    private static let boundsNanos: [UInt64] = bounds.map { UInt64($0 * 1e9) }

    /// One counter per bound plus one for `+Inf`; not cumulative (cumulated when rendered).
    private let buckets: [Counter] = (0...LatencyHistogram.bounds.count).map { _ in Counter() }
    private let sumMicros = Counter()
    public let count = Counter()

    public init() {}

    public func observe(nanoseconds: UInt64) {
        var index = 0
        while index < Self.boundsNanos.count && nanoseconds > Self.boundsNanos[index] { index += 1 }
        buckets[index].increment()
        sumMicros.increment(by: nanoseconds / 1000)
        count.increment()
    }

    /// Cumulative counts per bound, the last being `+Inf`.
    public var cumulativeCounts: [UInt64] {
        var total: UInt64 = 0
        return buckets.map { total += $0.value; return total }
    }

    public var sumSeconds: Double { Double(sumMicros.value) / 1e6 }
}
