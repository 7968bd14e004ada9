import Basics
import Push
import Synchronization

/// The push counters of `/metrics` (docs/push.md): sent, failed by reason, retried and tokens
/// removed per platform; pushes skipped because the device was live; the outbox's depth and the age
/// of its oldest push. Reasons are the senders' identifiers, capped per platform (LabeledCounters).
public final class PushMetrics: Sendable {
    private let sent: [PushPlatform: Counter]
    private let retried: [PushPlatform: Counter]
    private let tokensRemoved: [PushPlatform: Counter]
    private let failed: [PushPlatform: LabeledCounters]
    public let skippedLive = Counter()
    private let outbox = Mutex<(depth: Int, oldestAge: Double)>((0, 0))
    private let enabled = Atomic<Bool>(false)

    public init() {
        sent = Dictionary(uniqueKeysWithValues: PushPlatform.allCases.map { ($0, Counter()) })
        retried = Dictionary(uniqueKeysWithValues: PushPlatform.allCases.map { ($0, Counter()) })
        tokensRemoved = Dictionary(uniqueKeysWithValues: PushPlatform.allCases.map { ($0, Counter()) })
        failed = Dictionary(uniqueKeysWithValues: PushPlatform.allCases.map { ($0, LabeledCounters(maxLabels: 32)) })
    }

    /// Push runs on this node: its series are exposed.
    func enable() { enabled.store(true, ordering: .relaxed) }

    func recordSent(_ platform: PushPlatform) { sent[platform]!.increment() }
    func recordRetried(_ platform: PushPlatform) { retried[platform]!.increment() }
    func recordTokenRemoved(_ platform: PushPlatform) { tokensRemoved[platform]!.increment() }
    func recordFailed(_ platform: PushPlatform, reason: String) { failed[platform]!.increment(reason) }
    func setOutbox(depth: Int, oldestAge: Double) { outbox.withLock { $0 = (depth, oldestAge) } }

    public func sentCount(_ platform: PushPlatform) -> UInt64 { sent[platform]!.value }
    public func retriedCount(_ platform: PushPlatform) -> UInt64 { retried[platform]!.value }
    public func tokensRemovedCount(_ platform: PushPlatform) -> UInt64 { tokensRemoved[platform]!.value }
    public func failedCount(_ platform: PushPlatform, reason: String) -> UInt64 { failed[platform]!.value(reason) }

    func render(into out: inout PrometheusText) {
        guard enabled.load(ordering: .relaxed) else { return }
        out.header("catbird_mls_pushes_sent_total", "counter", "Pushes a push service accepted, by platform.")
        for platform in PushPlatform.allCases { out.sample("catbird_mls_pushes_sent_total", ["platform": platform.rawValue], sent[platform]!.value) }
        out.header("catbird_mls_pushes_failed_total", "counter", "Pushes given up (refused, past the deadline, invalid token), by platform and reason.")
        for platform in PushPlatform.allCases {
            for row in failed[platform]!.snapshot {
                out.sample("catbird_mls_pushes_failed_total", ["platform": platform.rawValue, "reason": row.label], row.value)
            }
        }
        out.header("catbird_mls_pushes_retried_total", "counter", "Pushes scheduled again after 429, 5xx or a network failure, by platform.")
        for platform in PushPlatform.allCases { out.sample("catbird_mls_pushes_retried_total", ["platform": platform.rawValue], retried[platform]!.value) }
        out.header("catbird_mls_push_tokens_removed_total", "counter", "Device registrations removed because the push service said the token is gone.")
        for platform in PushPlatform.allCases {
            out.sample("catbird_mls_push_tokens_removed_total", ["platform": platform.rawValue], tokensRemoved[platform]!.value)
        }
        out.header("catbird_mls_pushes_skipped_live_total", "counter", "Pushes not sent because the device held a live subscription covering the conversation.")
        out.sample("catbird_mls_pushes_skipped_live_total", [:], skippedLive.value)
        let (depth, age) = outbox.withLock { $0 }
        out.header("catbird_mls_push_outbox_depth", "gauge", "Pushes waiting in the outbox (all nodes).")
        out.sample("catbird_mls_push_outbox_depth", [:], String(depth))
        out.header("catbird_mls_push_outbox_oldest_seconds", "gauge", "Age of the oldest waiting push's event, in seconds.")
        out.sample("catbird_mls_push_outbox_oldest_seconds", [:], String(age))
    }
}
