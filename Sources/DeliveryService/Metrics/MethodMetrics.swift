/// Per-method counters: responses by status code and the latency histogram. Status codes outside
/// the fixed list count as `other`, so a method has at most `statuses.count + 1` series.
final class MethodMetrics: Sendable {
    static let statuses = [200, 400, 401, 403, 404, 405, 409, 410, 413, 429, 500, 503]

    let nsid: String
    let byStatus: [Int: Counter] = Dictionary(uniqueKeysWithValues: MethodMetrics.statuses.map { ($0, Counter()) })
    let otherStatus = Counter()
    let latency = LatencyHistogram()

    init(nsid: String) { self.nsid = nsid }

    func record(status: Int, nanoseconds: UInt64) {
        (byStatus[status] ?? otherStatus).increment()
        latency.observe(nanoseconds: nanoseconds)
    }
}
