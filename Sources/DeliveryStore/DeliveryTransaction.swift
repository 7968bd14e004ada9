import Foundation
import Store

/// The store's operations on a connection inside a transaction the caller owns (see
/// `DeliveryStore.transaction(_:)`). Use it only inside that closure.
///
/// Every operation takes the conversation's row lock (`SELECT … FOR UPDATE`) before it reads
/// state it is about to change, and checks all its preconditions before its first write: a
/// domain error leaves the transaction as it was, and the caller may go on or roll back.
public struct DeliveryTransaction {
    /// The transaction's connection, for the caller's own statements.
    public let connection: PGConnection
    public let configuration: DeliveryStore.Configuration

    public init(connection: PGConnection, configuration: DeliveryStore.Configuration = .init()) {
        self.connection = connection
        self.configuration = configuration
    }

    /// The conversation's epoch, with its row locked until the transaction ends.
    func lockConvo(_ convoID: String) throws -> Int64 {
        try lockConvoState(convoID).epoch
    }

    /// `lockConvo` that also says whether a ReInit commit froze the conversation.
    func lockConvoState(_ convoID: String) throws -> (epoch: Int64, frozen: Bool) {
        let rows = try connection.query(
            "SELECT epoch, frozen_epoch IS NOT NULL AS frozen FROM convos WHERE convo_id = $1 FOR UPDATE", [convoID])
        guard let row = rows.first else { throw DeliveryStoreError.convoNotFound }
        return (try row.int64("epoch"), try row.bool("frozen"))
    }

    /// `lockConvo` for a change that a frozen conversation refuses (`groupFrozen`).
    func lockLiveConvo(_ convoID: String) throws -> Int64 {
        let state = try lockConvoState(convoID)
        guard !state.frozen else { throw DeliveryStoreError.groupFrozen }
        return state.epoch
    }

    /// Takes the conversation's next seq and next event seq for a message, which is its own
    /// messageEvent (migration 0015; its row must be locked); with `touch`, also records the time
    /// as its last message time.
    func nextSeq(_ convoID: String, touch: Bool) throws -> (seq: Int64, eventSeq: Int64, at: Date) {
        let rows = try connection.query("""
            UPDATE convos SET last_seq = last_seq + 1, last_event_seq = last_event_seq + 1,
                              last_message_at = CASE WHEN $2 THEN now.at ELSE last_message_at END
            FROM (SELECT clock_timestamp() AS at) now
            WHERE convo_id = $1 RETURNING last_seq, last_event_seq, now.at
            """, [convoID, touch])
        guard let row = rows.first else { throw DeliveryStoreError.convoNotFound }
        return (try row.int64("last_seq"), try row.int64("last_event_seq"), try row.date("at"))
    }
}

extension PGRow {
    /// A cipher suite column (integer) as the RFC 9420 uint16.
    func cipherSuite(_ column: String) throws -> UInt16 {
        let value = try int64(column)
        guard let suite = UInt16(exactly: value) else { throw StoreError.decoding("cipher suite \(value) out of range") }
        return suite
    }

    func leafIndex(_ column: String) throws -> UInt32 {
        let value = try int64(column)
        guard let leaf = UInt32(exactly: value) else { throw StoreError.decoding("leaf index \(value) out of range") }
        return leaf
    }
}
