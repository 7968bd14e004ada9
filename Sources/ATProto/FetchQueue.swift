import Basics
import Foundation

/// Fetches from hosts outsiders choose, as a value: one flight per key (a request for a key already
/// queued or being fetched joins that fetch instead of starting another), a bounded queue, and caps
/// on fetches running at once, overall and per host. `FetchPool`'s threads take jobs with `next()`
/// and hand back the waiters of a finished one; nothing here blocks, and the time is the caller's.
/// The DID resolver's keys are DIDs (`DIDFetchQueue`); the chat contract's record reads, an account
/// and a collection.
public struct FetchQueue<Key: Hashable & Sendable, Waiter> {
    public struct Job: Equatable {
        public let key: Key
        /// Where the fetch goes (the PLC directory's host, a did:web host, a PDS).
        public let host: String
        public let queuedAt: Date
    }

    public enum Admission: Equatable, Sendable {
        /// A new fetch was queued.
        case started
        /// A fetch of this key was already queued or running; the waiter rides on it.
        case joined
        /// The queue is full: nothing was queued and the waiter will not be called.
        case refused
    }

    public let maxQueued: Int
    public let maxRunning: Int
    public let maxPerHost: Int
    private(set) var queued: [Job] = []
    private var running: [Key: String] = [:]
    private var runningPerHost: [String: Int] = [:]
    private var waiters: [Key: [Waiter]] = [:]

    public init(maxQueued: Int, maxRunning: Int, maxPerHost: Int) {
        self.maxQueued = max(1, maxQueued)
        self.maxRunning = max(1, maxRunning)
        self.maxPerHost = max(1, maxPerHost)
    }

    public var runningCount: Int { running.count }
    public var queuedCount: Int { queued.count }

    /// Asks for `key`; `waiter` (if any) is handed back when the fetch ends.
    public mutating func request(_ key: Key, host: String, now: Date, waiter: Waiter?) -> Admission {
        if running[key] != nil || queued.contains(where: { $0.key == key }) {
            if let waiter { waiters[key, default: []].append(waiter) }
            return .joined
        }
        guard queued.count < maxQueued else { return .refused }
        queued.append(Job(key: key, host: host, queuedAt: now))
        if let waiter { waiters[key, default: []].append(waiter) }
        return .started
    }

    /// The oldest queued job that the caps let run now, marked running.
    public mutating func next() -> Job? {
        guard running.count < maxRunning,
              let index = queued.firstIndex(where: { runningPerHost[$0.host, default: 0] < maxPerHost })
        else { return nil }
        let job = queued.remove(at: index)
        running[job.key] = job.host
        runningPerHost[job.host, default: 0] += 1
        return job
    }

    /// A running fetch ended (its outcome is in the cache): its waiters.
    public mutating func finish(_ key: Key) -> [Waiter] {
        if let host = running.removeValue(forKey: key) {
            let left = runningPerHost[host, default: 1] - 1
            runningPerHost[host] = left > 0 ? left : nil
        }
        return waiters.removeValue(forKey: key) ?? []
    }

    /// Drops the jobs that waited in the queue `maxWait` seconds or more without a free slot: their
    /// waiters learn that nothing was fetched.
    public mutating func expire(olderThan maxWait: Double, now: Date) -> [Waiter] {
        guard let first = queued.first, now.timeIntervalSince(first.queuedAt) >= maxWait else { return [] }
        var dropped: [Waiter] = []
        queued.removeAll { job in
            guard now.timeIntervalSince(job.queuedAt) >= maxWait else { return false }
            dropped += waiters.removeValue(forKey: job.key) ?? []
            return true
        }
        return dropped
    }

    /// True while a fetch of `key` is queued or running.
    public func isPending(_ key: Key) -> Bool {
        running[key] != nil || queued.contains { $0.key == key }
    }
}

/// The DID resolver's document fetches: one flight per DID.
typealias DIDFetchQueue<Waiter> = FetchQueue<DID, Waiter>

extension FetchQueue.Job where Key == DID {
    var did: DID { key }
}
