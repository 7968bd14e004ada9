import ATProto
import DeliveryStore
import Foundation
import Synchronization

/// Deletes what has expired, once a minute on a thread of its own: replayed-token records past
/// exp + skew, idempotency records past their lifetime, KeyPackages past their expiry.
final class MaintenanceJob: Sendable {
    private let store: DeliveryStore
    private let replayStore: PostgresReplayStore
    private let log: Log
    private let stopped = Atomic<Bool>(false)

    init(store: DeliveryStore, replayStore: PostgresReplayStore, log: Log) {
        self.store = store
        self.replayStore = replayStore
        self.log = log
    }

    func start(interval: Double = 60) {
        let thread = Thread { [self] in
            var next = Date()
            while !stopped.load(ordering: .relaxed) {
                if Date() >= next {
                    runOnce()
                    next = Date().addingTimeInterval(interval)
                }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
        thread.name = "maintenance"
        thread.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// One pass; failures are logged and retried on the next pass.
    func runOnce() {
        do {
            let tokens = try replayStore.deleteExpired(now: Date())
            let records = try store.deleteExpiredIdempotencyRecords()
            let packages = try store.deleteExpiredKeyPackages()
            if tokens + records + packages > 0 {
                log.debug("expired rows deleted", ["tokens": String(tokens), "idempotency": String(records),
                                                    "keyPackages": String(packages)])
            }
        } catch {
            log.warning("maintenance pass failed", ["error": String(describing: type(of: error))])
        }
    }
}
