/// What the server a connection reached does: the primary takes writes; a standby (in recovery,
/// PostgreSQL manual §27.4) only reads. With `target_session_attrs=read-write` libpq connects to
/// the primary alone.
public enum ServerRole: String, Sendable {
    case primary
    case standby
}

extension Database {
    /// The role of the server a pooled connection reaches; throws when none can be reached.
    public func serverRole() throws(StoreError) -> ServerRole {
        let rows = try query("SELECT pg_is_in_recovery() AS recovery")
        guard let row = rows.first else { throw .decoding("pg_is_in_recovery() returned no row") }
        return try row.decode(Bool.self, "recovery") ? .standby : .primary
    }
}
