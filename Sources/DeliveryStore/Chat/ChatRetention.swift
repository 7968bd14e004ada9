import Foundation
import Store

/// The chat contract's tables the retention job trims (MESSAGE_TTL_DAYS, docs/chat.md
/// "Retention"). Chat entries are not among them: they are the conversations' logs, which members
/// read from their intervals' starts.
public enum ChatRetainedTable: String, Sendable, CaseIterable {
    /// The device event stream; the purge moves `chat_event_horizon`.
    case chatEvents = "chat_device_events"
    /// Completed signed operations: past their time an exact replay is a new request again, which
    /// `signedAt`'s five-minute window refuses.
    case chatOperations = "chat_operations"
    /// Inventory sessions and subscription tickets, by their expiry.
    case chatInventorySessions = "chat_inventory_sessions"
    case chatTickets = "chat_tickets"
}

extension DeliveryStore {
    /// Deletes at most `limit` rows of `table` created (sessions and tickets: expired) before
    /// `cutoff`, in one short transaction, and returns how many. Events go oldest position first
    /// (positions grow with time, so the position index serves and no index on their age is kept
    /// up on the send path): of the `limit` oldest, those past the cutoff; the horizon moves to the
    /// highest position deleted, in the same transaction.
    public func purgeExpired(_ table: ChatRetainedTable, createdBefore cutoff: Date, limit: Int) throws(DeliveryStoreError) -> Int {
        guard limit >= 1 else { throw DeliveryStoreError.invalidArgument("limit ≥ 1") }
        let sql = switch table {
        case .chatEvents: """
            WITH gone AS (
                DELETE FROM chat_device_events WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM (SELECT ctid, created_at FROM chat_device_events ORDER BY position LIMIT $2) oldest
                    WHERE created_at < $1))
                RETURNING position),
            moved AS (
                UPDATE chat_event_horizon SET position = greatest(position, (SELECT max(position) FROM gone))
                WHERE id = 1 AND EXISTS (SELECT 1 FROM gone) RETURNING position)
            SELECT count(*) AS n FROM gone
            """
        case .chatOperations: """
            WITH gone AS (DELETE FROM chat_operations WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM chat_operations WHERE created_at < $1 LIMIT $2)) RETURNING 1)
            SELECT count(*) AS n FROM gone
            """
        case .chatInventorySessions, .chatTickets: """
            WITH gone AS (DELETE FROM \(table.rawValue) WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM \(table.rawValue) WHERE expires_at < $1 LIMIT $2)) RETURNING 1)
            SELECT count(*) AS n FROM gone
            """
        }
        return try run { transaction throws(DeliveryStoreError) in
            try guarded { try transaction.connection.query(sql, [cutoff, Int64(limit)]).first?.int("n") ?? 0 }
        }
    }
}

extension ChatTransaction {
    /// The highest event position the retention job purged: events at or below it may be gone.
    public func eventHorizon() throws -> Int64 {
        try connection.query("SELECT position FROM chat_event_horizon WHERE id = 1").first?.int64("position") ?? 0
    }
}
