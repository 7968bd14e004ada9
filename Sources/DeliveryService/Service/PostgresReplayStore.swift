import Foundation
import ATProto
import Store

/// The replay store shared by all nodes: `auth_replay` from migrations/0001_auth_replay.sql.
public final class PostgresReplayStore: ReplayStore {
    private let database: Database
    private let clock: @Sendable () -> Date

    public init(database: Database, clock: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.clock = clock
    }

    /// One statement, atomic across nodes: a new pair is inserted; a pair whose row has expired
    /// (cleanup not yet run) is taken over; a live pair is left alone and reports a replay.
    ///
    /// The insert commits synchronously, like user data: on a synchronous standby too when the
    /// cluster has one, so that a token used before a crash or a failover stays used after it
    /// (docs/SECURITY.md, "Replay records and failover").
    public func remember(iss: String, jti: String, until: Date) throws -> Bool {
        let now = clock()
        let affected = try database.execute("""
            INSERT INTO auth_replay (iss, jti, expires_at) VALUES ($1, $2, $3)
            ON CONFLICT (iss, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at
            WHERE auth_replay.expires_at < $4
            """, [iss, jti, until, now])
        return affected == 1
    }

    /// Deletes pairs whose tokens can no longer pass the expiry check; returns how many.
    @discardableResult
    public func deleteExpired(now: Date) throws -> Int {
        try database.execute("DELETE FROM auth_replay WHERE expires_at < $1", [now])
    }
}
