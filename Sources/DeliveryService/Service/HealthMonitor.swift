import Foundation
import Store
import Synchronization

/// Asks the database for its role once a second on a thread of its own, so `_health` answers from
/// memory and a flood of health checks never becomes a flood of queries. The service can write
/// only while it reaches a primary: a standby (a URL without target_session_attrs=read-write) or
/// no server at all is unhealthy.
public final class HealthMonitor: Sendable {
    /// What the last check found.
    public enum DatabaseState: UInt8, Sendable {
        case unavailable = 0
        case primary = 1
        case standby = 2

        public var name: String {
            switch self {
            case .unavailable: "unavailable"
            case .primary: ServerRole.primary.rawValue
            case .standby: ServerRole.standby.rawValue
            }
        }
    }

    private let database: Database
    private let state = Atomic<UInt8>(DatabaseState.unavailable.rawValue)
    private let stopped = Atomic<Bool>(false)

    public init(database: Database) {
        self.database = database
        check()
    }

    public var databaseState: DatabaseState { DatabaseState(rawValue: state.load(ordering: .relaxed)) ?? .unavailable }
    public var isDatabaseHealthy: Bool { databaseState == .primary }

    public func start(interval: Double = 1) {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: interval)
                check()
            }
        }
        thread.name = "health-monitor"
        thread.start()
    }

    public func stop() { stopped.store(true, ordering: .relaxed) }

    private func check() {
        let found: DatabaseState = switch try? database.serverRole() {
        case .primary: .primary
        case .standby: .standby
        case nil: .unavailable
        }
        state.store(found.rawValue, ordering: .relaxed)
    }
}
