/// Per-method counters: responses by status code and the latency histogram. Status codes outside
/// the fixed list count as `other`, so a method has at most `statuses.count + 1` series.
final class MethodMetrics: Sendable {
    static let statuses = [200, 400, 401, 403, 404, 405, 409, 410, 413, 429, 500, 503]

    let nsid: String
    /// One counter per entry of `statuses`, in its order: found per request by a scan of twelve
    /// integers instead of a hashed lookup.
    private let counters: [Counter]
    let otherStatus = Counter()
    let latency = LatencyHistogram()
    /// A success of this method applies a commit, and its 4xx answers are commit rejections.
    let appliesCommits: Bool

    init(nsid: String, appliesCommits: Bool = false) {
        self.nsid = nsid
        self.appliesCommits = appliesCommits
        counters = MethodMetrics.statuses.map { _ in Counter() }
    }

    /// The counter of `status`, if it is one of `statuses`.
    func counter(status: Int) -> Counter? {
        MethodMetrics.statuses.firstIndex(of: status).map { counters[$0] }
    }

    func record(status: Int, nanoseconds: UInt64) {
        (counter(status: status) ?? otherStatus).increment()
        latency.observe(nanoseconds: nanoseconds)
    }
}
