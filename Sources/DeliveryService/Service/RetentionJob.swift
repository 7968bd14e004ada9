import DeliveryStore
import Foundation
import Synchronization

/// One kind of expired data the retention job removes, a bounded batch per call.
///
/// The tables of the store are steps; the blob store adds its own (deleting blobs whose messages
/// have expired) by passing it in `RetentionJob(extraSteps:)`.
protocol RetentionStep: Sendable {
    var name: String { get }
    /// Deletes at most `limit` items created before `cutoff`; returns how many it deleted.
    func purgeBatch(createdBefore cutoff: Date, limit: Int) throws -> Int
}

/// A DeliveryStore table trimmed by age (see `DeliveryStore.purgeExpired`).
struct TableRetention: RetentionStep {
    let store: DeliveryStore
    let table: RetainedTable
    let keepCommitEpochs: Int64

    var name: String { table.rawValue }

    func purgeBatch(createdBefore cutoff: Date, limit: Int) throws -> Int {
        try store.purgeExpired(table, createdBefore: cutoff, keepCommitEpochs: keepCommitEpochs, limit: limit)
    }
}

/// A chat table trimmed by age (`DeliveryStore.purgeExpired(_:createdBefore:limit:)` of
/// `ChatRetainedTable`); the device event stream by its own, shorter lifetime (CHAT_EVENT_TTL_HOURS).
struct ChatTableRetention: RetentionStep {
    let store: DeliveryStore
    let table: ChatRetainedTable
    var eventLifetime: TimeInterval
    var now: @Sendable () -> Date = { Date() }

    var name: String { table.rawValue }

    func purgeBatch(createdBefore cutoff: Date, limit: Int) throws -> Int {
        let cutoff = table == .chatEvents ? max(cutoff, now().addingTimeInterval(-eventLifetime)) : cutoff
        return try store.purgeExpired(table, createdBefore: cutoff, limit: limit)
    }

    static func all(store: DeliveryStore, eventLifetime: TimeInterval, now: @escaping @Sendable () -> Date = { Date() }) -> [Self] {
        ChatRetainedTable.allCases.map { Self(store: store, table: $0, eventLifetime: eventLifetime, now: now) }
    }
}

/// How long messages, events and commits are kept (docs/configuration.md).
public struct RetentionSettings: Sendable, Equatable {
    /// Days a message or event is kept; 0 keeps everything.
    public var ttlDays = 30
    /// Each conversation's last commits kept whatever their age.
    public var keepCommitEpochs = 16
    /// Rows per delete statement.
    public var batchSize = 10_000
    /// Seconds between passes.
    public var interval: Double = 3600

    public init() {}
}

/// Deletes messages, events and old commits past their time to live, on a thread of its own, in
/// bounded batches (each its own short transaction) so a large purge never locks a table for long.
final class RetentionJob: Sendable {
    typealias Settings = RetentionSettings

    /// What one pass deleted, by step name, and how many delete statements it took.
    struct Report: Sendable, Equatable {
        var deleted: [String: Int] = [:]
        var batches = 0
    }

    let settings: Settings
    private let steps: [any RetentionStep]
    private let log: Log
    private let now: @Sendable () -> Date
    private let stopped = Atomic<Bool>(false)

    init(store: DeliveryStore, settings: Settings, log: Log, now: @escaping @Sendable () -> Date = { Date() },
         extraSteps: [any RetentionStep] = []) {
        self.settings = settings
        self.log = log
        self.now = now
        let keep = Int64(settings.keepCommitEpochs)
        steps = RetainedTable.allCases.map { TableRetention(store: store, table: $0, keepCommitEpochs: keep) } + extraSteps
    }

    func start() {
        guard settings.ttlDays > 0 else { return }
        let thread = Thread { [self] in
            // Not at once: start-up has enough to do, and nothing expires in a minute.
            var next = Date().addingTimeInterval(min(settings.interval, 60))
            while !stopped.load(ordering: .relaxed) {
                if Date() >= next {
                    runOnce()
                    next = Date().addingTimeInterval(settings.interval)
                }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
        thread.name = "retention"
        thread.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// One pass: each step in batches until a batch comes back short. A failure is logged and the
    /// pass moves on to the next step; the next pass retries.
    @discardableResult
    func runOnce() -> Report {
        var report = Report()
        guard settings.ttlDays > 0 else { return report }
        let cutoff = now().addingTimeInterval(-Double(settings.ttlDays) * 86_400)
        for step in steps {
            var total = 0
            do {
                while !stopped.load(ordering: .relaxed) {
                    let deleted = try step.purgeBatch(createdBefore: cutoff, limit: settings.batchSize)
                    report.batches += 1
                    total += deleted
                    if deleted < settings.batchSize { break }
                }
            } catch {
                log.warning("retention step failed", ["step": step.name, "error": String(describing: type(of: error))])
            }
            report.deleted[step.name] = total
        }
        if report.deleted.values.contains(where: { $0 > 0 }) {
            let counts = steps.map { "\($0.name)=\(report.deleted[$0.name] ?? 0)" }.joined(separator: " ")
            log.info("expired rows purged", ["deleted": counts, "batches": String(report.batches)])
        }
        return report
    }
}
