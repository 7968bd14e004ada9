import Basics
import Foundation

/// The resolver's DID document fetches as a value: one flight per DID (a request for a DID already
/// queued or being fetched joins that fetch instead of starting another), a bounded queue, and caps
/// on fetches running at once, overall and per host. The resolver's threads take jobs with `next()`
/// and hand back the waiters of a finished one; nothing here blocks, and the time is the caller's.
struct DIDFetchQueue<Waiter> {
    struct Job: Equatable {
        let did: DID
        /// Where the document lives (the PLC directory's host, or a did:web host).
        let host: String
        let queuedAt: Date
    }

    enum Admission: Equatable, Sendable {
        /// A new fetch was queued.
        case started
        /// A fetch of this DID was already queued or running; the waiter rides on it.
        case joined
        /// The queue is full: nothing was queued and the waiter will not be called.
        case refused
    }

    let maxQueued: Int
    let maxRunning: Int
    let maxPerHost: Int
    private(set) var queued: [Job] = []
    private var running: [DID: String] = [:]
    private var runningPerHost: [String: Int] = [:]
    private var waiters: [DID: [Waiter]] = [:]

    init(maxQueued: Int, maxRunning: Int, maxPerHost: Int) {
        self.maxQueued = max(1, maxQueued)
        self.maxRunning = max(1, maxRunning)
        self.maxPerHost = max(1, maxPerHost)
    }

    var runningCount: Int { running.count }
    var queuedCount: Int { queued.count }

    /// Asks for `did`'s document; `waiter` (if any) is handed back when the fetch ends.
    mutating func request(_ did: DID, host: String, now: Date, waiter: Waiter?) -> Admission {
        if running[did] != nil || queued.contains(where: { $0.did == did }) {
            if let waiter { waiters[did, default: []].append(waiter) }
            return .joined
        }
        guard queued.count < maxQueued else { return .refused }
        queued.append(Job(did: did, host: host, queuedAt: now))
        if let waiter { waiters[did, default: []].append(waiter) }
        return .started
    }

    /// The oldest queued job that the caps let run now, marked running.
    mutating func next() -> Job? {
        guard running.count < maxRunning,
              let index = queued.firstIndex(where: { runningPerHost[$0.host, default: 0] < maxPerHost })
        else { return nil }
        let job = queued.remove(at: index)
        running[job.did] = job.host
        runningPerHost[job.host, default: 0] += 1
        return job
    }

    /// A running fetch ended (its outcome is in the cache): its waiters.
    mutating func finish(_ did: DID) -> [Waiter] {
        if let host = running.removeValue(forKey: did) {
            let left = runningPerHost[host, default: 1] - 1
            runningPerHost[host] = left > 0 ? left : nil
        }
        return waiters.removeValue(forKey: did) ?? []
    }

    /// Drops the jobs that waited in the queue `maxWait` seconds or more without a free slot: their
    /// waiters learn that nothing was fetched.
    mutating func expire(olderThan maxWait: Double, now: Date) -> [Waiter] {
        guard let first = queued.first, now.timeIntervalSince(first.queuedAt) >= maxWait else { return [] }
        var dropped: [Waiter] = []
        queued.removeAll { job in
            guard now.timeIntervalSince(job.queuedAt) >= maxWait else { return false }
            dropped += waiters.removeValue(forKey: job.did) ?? []
            return true
        }
        return dropped
    }

    /// True while a fetch of `did` is queued or running.
    func isPending(_ did: DID) -> Bool {
        running[did] != nil || queued.contains { $0.did == did }
    }
}
