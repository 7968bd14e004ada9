import Dispatch
import Foundation
import Synchronization

/// A fixed set of threads running jobs that may block (database, network), first in, first out.
package final class WorkerPool: Sendable {
    package typealias Job = @Sendable () -> Void

    private enum Item {
        case run(Job)
        case stop
    }

    private struct Queue {
        var items: [Item] = []
        var head = 0

        mutating func push(_ item: Item) {
            items.append(item)
        }

        mutating func pop() -> Item? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            // Compact once the consumed prefix dominates, keeping pops O(1) amortised.
            if head >= 64, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }
    }

    package let threadCount: Int
    /// Threads are named `<name>-<index>`.
    private let name: String
    private let queue = Mutex(Queue())
    private let available = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()

    package init(threadCount: Int, name: String = "http-worker") {
        self.threadCount = Swift.max(1, threadCount)
        self.name = name
    }

    package func start() {
        for index in 0..<threadCount {
            finished.enter()
            let thread = Thread { [self] in
                Thread.current.name = "\(name)-\(index)"
                work()
                finished.leave()
            }
            thread.start()
        }
    }

    package func submit(_ job: @escaping Job) {
        queue.withLock { $0.push(.run(job)) }
        available.signal()
    }

    /// Lets queued jobs finish, then stops and joins every thread.
    package func shutdown() {
        for _ in 0..<threadCount {
            queue.withLock { $0.push(.stop) }
            available.signal()
        }
        finished.wait()
    }

    private func work() {
        while true {
            available.wait()
            guard let item = queue.withLock({ $0.pop() }) else { continue }
            switch item {
            case let .run(job): job()
            case .stop: return
            }
        }
    }
}
