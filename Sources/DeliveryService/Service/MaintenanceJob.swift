import ATProto
import DeliveryStore
import Foundation
import Synchronization

/// Deletes what has expired, once a minute on a thread of its own: replayed-token records past
/// exp + skew, idempotency records past their lifetime, KeyPackages past their expiry, and the
/// chat contract's blobs past theirs (`ChatBlobExpiry`).
final class MaintenanceJob: Sendable {
    private let store: DeliveryStore
    private let replayStore: PostgresReplayStore
    private let chatBlobs: ChatBlobExpiry?
    private let log: Log
    private let stopped = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let wake = DispatchSemaphore(value: 0)

    init(store: DeliveryStore, replayStore: PostgresReplayStore, chatBlobs: ChatBlobExpiry? = nil, log: Log) {
        self.store = store
        self.replayStore = replayStore
        self.chatBlobs = chatBlobs
        self.log = log
    }

    func start(interval: Double = 60) {
        running.store(true, ordering: .relaxed)
        let thread = Thread { [self] in
            defer { finished.signal() }
            var next = Date()
            while !stopped.load(ordering: .relaxed) {
                if Date() >= next {
                    runOnce()
                    next = Date().addingTimeInterval(interval)
                }
                _ = wake.wait(timeout: .now() + 0.5)
            }
        }
        thread.name = "maintenance"
        thread.start()
    }

    /// Stops the loop and waits (up to `timeout` seconds) for a pass in progress, so that the
    /// database can be closed under it without a spurious failure.
    func stop(timeout: Double = 10) {
        stopped.store(true, ordering: .relaxed)
        wake.signal()
        if running.exchange(false, ordering: .relaxed) { _ = finished.wait(timeout: .now() + timeout) }
    }

    /// One pass; failures are logged and retried on the next pass.
    func runOnce() {
        do {
            let tokens = try replayStore.deleteExpired(now: Date())
            let records = try store.deleteExpiredIdempotencyRecords()
            let packages = try store.deleteExpiredKeyPackages()
            let blobs = try chatBlobs?.runOnce() ?? 0
            if tokens + records + packages + blobs > 0 {
                log.debug("expired rows deleted", ["tokens": String(tokens), "idempotency": String(records),
                                                    "keyPackages": String(packages), "chatBlobs": String(blobs)])
            }
        } catch {
            log.warning("maintenance pass failed", ["error": String(describing: type(of: error))])
        }
    }
}
