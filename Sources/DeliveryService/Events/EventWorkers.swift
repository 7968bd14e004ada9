import Dispatch
import Foundation
import Synchronization

/// A few threads of their own for the work of subscriptions that blocks on the database (opening
/// a subscription, catching up from the log), so neither the I/O threads nor the notifier wait.
final class EventWorkers: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var stopped = false
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

    /// Queues `job`; never blocks. Jobs submitted after `stop` are dropped.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let accepted = state.withLock { state in
            guard !state.stopped else { return false }
            state.jobs.append(job)
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
        }
        for _ in 0..<threads { available.signal() }
        for _ in 0..<threads { _ = finished.wait(timeout: .now() + timeout) }
    }

    private func next() -> (@Sendable () -> Void)? {
        while true {
            available.wait()
            let job: (@Sendable () -> Void)?? = state.withLock { state in
                if state.stopped { return .some(nil) }
                return state.jobs.isEmpty ? nil : state.jobs.removeFirst()
            }
            switch job {
            case .some(.some(let job)): return job
            case .some(.none): return nil
            case .none: continue
            }
        }
    }
}
