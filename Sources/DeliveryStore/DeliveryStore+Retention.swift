import Foundation
import Store

/// The tables the retention purge trims by age.
public enum RetainedTable: String, Sendable, CaseIterable {
    /// Application messages, commits and proposals as delivered (getMessages).
    case messages
    /// The subscribers' event log.
    case events
    /// The per-epoch commit rows (getCommits), less the most recent epochs of each conversation.
    case commits
}

extension DeliveryStore {
    /// Deletes at most `limit` rows of `table` created before `cutoff`, in one short transaction,
    /// and returns how many it deleted: fewer than `limit` means nothing expired is left. Callers
    /// loop, so a large purge never holds locks for long.
    ///
    /// Counters are untouched: `convos.last_seq` and `last_event_seq` keep counting, so a seq is
    /// never reused and a reader's old `sinceSeq` simply finds the rows that are left. For
    /// `commits`, the last `keepCommitEpochs` commits of each conversation stay whatever their age,
    /// so a member a few epochs behind can still catch up with getCommits; the current epoch itself
    /// needs none (its state is `convos.public_state`).
    public func purgeExpired(_ table: RetainedTable, createdBefore cutoff: Date, keepCommitEpochs: Int64 = 0,
                             limit: Int) throws(DeliveryStoreError) -> Int {
        guard limit >= 1, keepCommitEpochs >= 0 else {
            throw DeliveryStoreError.invalidArgument("limit ≥ 1 and keepCommitEpochs ≥ 0")
        }
        // `ctid = ANY(ARRAY(…))` makes the delete a TID scan of exactly the selected rows; the rows
        // of these tables are never updated, so their ctids are stable within the statement.
        let sql = switch table {
        case .messages: """
            DELETE FROM messages WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM messages WHERE created_at < $1 LIMIT $2))
            """
        case .events: """
            DELETE FROM events WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM events WHERE created_at < $1 LIMIT $2))
            """
        case .commits: """
            DELETE FROM commits WHERE ctid = ANY(ARRAY(
                SELECT c.ctid FROM commits c JOIN convos v ON v.convo_id = c.convo_id
                WHERE c.created_at < $1 AND c.epoch < v.epoch - $3 LIMIT $2))
            """
        }
        let parameters: [(any PGBindable)?] = table == .commits ? [cutoff, Int64(limit), keepCommitEpochs]
                                                                : [cutoff, Int64(limit)]
        if table == .messages { return try purgeMessages(sql, parameters) }
        return try run { transaction throws(DeliveryStoreError) in
            try guarded { try transaction.connection.execute(sql, parameters) }
        }
    }

    /// The messages purge, which gives each sender back what its purged application messages were
    /// charged (`message_quota_charge`), in the same transaction.
    private func purgeMessages(_ deleteSQL: String, _ parameters: [(any PGBindable)?]) throws(DeliveryStoreError) -> Int {
        let sql = """
            WITH gone AS (\(deleteSQL) RETURNING sender_did, message_type, ciphertext IS NULL AS thin, size)
            SELECT sender_did, count(*) AS n,
                   coalesce(sum(message_quota_charge(CASE WHEN thin THEN 0 ELSE size END))
                            FILTER (WHERE message_type = 'app'), 0)::int8 AS bytes
            FROM gone GROUP BY sender_did ORDER BY sender_did
            """
        return try run { transaction throws(DeliveryStoreError) in
            try guarded {
                let rows = try transaction.connection.query(sql, parameters)
                var dids: [String] = [], bytes: [Int64] = [], deleted = 0
                for row in rows {
                    deleted += try row.int("n")
                    let charge = try row.int64("bytes")
                    guard charge > 0 else { continue }
                    dids.append(try row.string("sender_did"))
                    bytes.append(charge)
                }
                if !dids.isEmpty {
                    _ = try transaction.connection.query(MessageQuotaSQL.lockUsage, [PGArray(dids)])
                    try transaction.connection.execute(MessageQuotaSQL.refund, [PGArray(dids), PGArray(bytes)])
                }
                return deleted
            }
        }
    }
}
