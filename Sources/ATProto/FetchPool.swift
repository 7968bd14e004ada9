import Foundation
import Synchronization

/// The threads that run a `FetchQueue`'s fetches, so that no caller's thread ever waits on a host
/// an outsider chose: at most `maxRunning` at once (`maxPerHost` to one host), up to `maxQueued`
/// waiting, each waiting at most `maxWait` seconds for a slot. Threads come and go with the load;
/// an idle one ends after a while. `fetch` does the work and stores its outcome where the waiters
/// look (a cache); the waiters are then called on the fetch's thread, and must not block.
public final class FetchPool<Key: Hashable & Sendable>: @unchecked Sendable {
    public typealias Waiter = @Sendable () -> Void

    private let name: String
    private let maxWait: Double
    private let clock: @Sendable () -> Date
    private let fetch = Mutex<(@Sendable (Key) -> Void)?>(nil)
    // Guarded by `condition`, the threads' only shared mutable state.
    private let condition = NSCondition()
    private var queue: FetchQueue<Key, Waiter>
    private var threads = 0
    private var idleThreads = 0

    public init(name: String, maxQueued: Int, maxRunning: Int, maxPerHost: Int, maxWait: Double,
                clock: @escaping @Sendable () -> Date = Date.init) {
        self.name = name
        self.maxWait = maxWait
        self.clock = clock
        queue = FetchQueue(maxQueued: maxQueued, maxRunning: maxRunning, maxPerHost: maxPerHost)
    }

    /// What a fetch does; set once by the pool's owner, before the first request.
    public func perform(_ body: @escaping @Sendable (Key) -> Void) {
        fetch.withLock { $0 = body }
    }

    /// Fetches in flight and queued (metrics, tests).
    public var pending: (running: Int, queued: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (queue.runningCount, queue.queuedCount)
    }

    /// Queues a fetch of `key` from `host` (or joins the one under way); `waiter` is called once it
    /// ended, or once it gave up waiting for a slot.
    public func request(_ key: Key, host: String, waiter: Waiter?) -> FetchQueue<Key, Waiter>.Admission {
        condition.lock()
        defer { condition.unlock() }
        let admission = queue.request(key, host: host, now: clock(), waiter: waiter)
        guard admission == .started else { return admission }
        // A woken thread counts as idle until it runs: one idle thread per queued job, or more threads.
        if idleThreads < queue.queuedCount, threads < queue.maxRunning {
            threads += 1
            let thread = Thread { [self] in work() }
            thread.name = name
            thread.start()
        }
        condition.signal()
        return .started
    }

    /// One thread: takes what the caps allow, fetches, wakes the waiters.
    private func work() {
        condition.lock()
        while true {
            let expired = queue.expire(olderThan: maxWait, now: clock())
            if !expired.isEmpty {
                condition.unlock()
                expired.forEach { $0() }
                condition.lock()
                continue
            }
            if let job = queue.next() {
                condition.unlock()
                fetch.withLock { $0 }?(job.key)
                condition.lock()
                let waiters = queue.finish(job.key)
                // A host slot freed: a job that waited for it may run on another thread.
                condition.broadcast()
                condition.unlock()
                waiters.forEach { $0() }
                condition.lock()
                continue
            }
            idleThreads += 1
            // While jobs wait (for a host slot), wake often enough to expire them on time.
            let wait = queue.queuedCount > 0 ? min(0.25, maxWait) : 10
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: wait))
            idleThreads -= 1
            if !signalled, queue.queuedCount == 0 {
                threads -= 1
                condition.unlock()
                return
            }
        }
    }
}
