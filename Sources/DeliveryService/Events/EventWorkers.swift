import Dispatch
import Foundation
import Synchronization

/// A few threads of their own for the work of subscriptions that blocks on the database (opening
/// a subscription, catching up from the log), so neither the I/O threads nor the notifier wait.
final class EventWorkers: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var jobsHead = 0
        /// Jobs that must not wait behind a long queue (a new connection's authentication); taken
        /// in turn with the others, so neither lane can hold every thread.
        var urgent: [@Sendable () -> Void] = []
        var urgentHead = 0
        var urgentTurn = true
        var stopped = false

        /// The next job: alternately from each lane while both have one.
        mutating func take() -> (@Sendable () -> Void)? {
            let hasUrgent = urgentHead < urgent.count, hasJob = jobsHead < jobs.count
            guard hasUrgent || hasJob else { return nil }
            let fromUrgent = hasUrgent && (urgentTurn || !hasJob)
            urgentTurn = !fromUrgent
            return fromUrgent ? Self.pop(&urgent, &urgentHead) : Self.pop(&jobs, &jobsHead)
        }

        /// The job at `head`, the array compacted once most of it has been taken.
        private static func pop(_ queue: inout [@Sendable () -> Void], _ head: inout Int) -> @Sendable () -> Void {
            let job = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 64, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    private let threads: Int
    private let name: String
    private let finished = DispatchSemaphore(value: 0)

    init(threads: Int, name: String = "events") {
        self.threads = threads
        self.name = name
    }

    func start() {
        for index in 0..<threads {
            let thread = Thread { [self] in
                defer { finished.signal() }
                while let job = next() { job() }
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Queues `job`; never blocks. Jobs submitted after `stop` are dropped. An `urgent` job is taken
    /// before the other queued ones, in turn with them.
    func submit(urgent: Bool = false, _ job: @escaping @Sendable () -> Void) {
        let accepted = state.withLock { state in
            guard !state.stopped else { return false }
            if urgent { state.urgent.append(job) } else { state.jobs.append(job) }
            return true
        }
        if accepted { available.signal() }
    }

    /// Queues `job` after `delay` seconds.
    func submit(after delay: Double, _ job: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in submit(job) }
    }

    /// Drops queued jobs and waits (up to `timeout` seconds) for running ones.
    func stop(timeout: Double = 5) {
        state.withLock { state in
            state.stopped = true
            state.jobs.removeAll()
            state.urgent.removeAll()
        }
        for _ in 0..<threads { available.signal() }
        for _ in 0..<threads { _ = finished.wait(timeout: .now() + timeout) }
    }

    private func next() -> (@Sendable () -> Void)? {
        while true {
            available.wait()
            let job: (@Sendable () -> Void)?? = state.withLock { state in
                if state.stopped { return .some(nil) }
                guard let job = state.take() else { return nil }
                return job
            }
            switch job {
            case .some(.some(let job)): return job
            case .some(.none): return nil
            case .none: continue
            }
        }
    }
}
