import Foundation
import Synchronization

/// Remembers `(iss, jti)` pairs until a deadline (AUTH.md check 9).
public protocol ReplayStore: Sendable {
    /// Records the pair; false when it was already recorded and has not expired (a replay).
    func remember(iss: String, jti: String, until: Date) throws -> Bool
}

/// A single-process replay store, for tests and single-node development. Production uses
/// DeliveryService's `PostgresReplayStore` so that every node sees every token.
public final class InMemoryReplayStore: ReplayStore {
    private struct Key: Hashable { let iss: String; let jti: String }

    private let clock: @Sendable () -> Date
    private let seen = Mutex<[Key: Date]>([:])

    public init(clock: @escaping @Sendable () -> Date = Date.init) {
        self.clock = clock
    }

    public func remember(iss: String, jti: String, until: Date) -> Bool {
        let now = clock()
        return seen.withLock { seen in
            let key = Key(iss: iss, jti: jti)
            if let expiry = seen[key], expiry >= now { return false }
            if seen.count > 10_000 { seen = seen.filter { $0.value >= now } }
            seen[key] = until
            return true
        }
    }
}
