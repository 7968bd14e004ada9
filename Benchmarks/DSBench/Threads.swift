import Dispatch
import Foundation

/// Dedicated threads for work that blocks (sendMessage calls, poll loops): unlike
/// `concurrentPerform`, which runs no more iterations at once than there are cores.
enum Threads {
    /// Starts `count` threads running `body(index)`; the returned group is left when all are done.
    static func start(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        return group
    }
}
