import Foundation
import Store
import Synchronization

/// Pings the database once a second on a thread of its own, so `_health` answers from memory and a
/// flood of health checks never becomes a flood of queries.
public final class HealthMonitor: Sendable {
    private let database: Database
    private let healthy = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    public init(database: Database) {
        self.database = database
        healthy.store(database.ping(), ordering: .relaxed)
    }

    public var isDatabaseHealthy: Bool { healthy.load(ordering: .relaxed) }

    public func start(interval: Double = 1) {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: interval)
                healthy.store(database.ping(), ordering: .relaxed)
            }
        }
        thread.name = "health-monitor"
        thread.start()
    }

    public func stop() { stopped.store(true, ordering: .relaxed) }
}
