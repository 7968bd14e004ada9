import Foundation
import Store

/// One event of a conversation's log with the message a messageEvent points at.
public struct LoggedEvent: Sendable, Equatable {
    public var event: ConvoEvent
    /// The stored message of a messageEvent (nil for other events, or a message purged since).
    public var message: MessageRow?
}

extension DeliveryStore {
    /// The conversation's events after `afterSeq`, oldest first, each messageEvent with its message:
    /// one statement, for the event stream's readers (subscribeConvoEvents, MQTT) that need both.
    public func eventsWithMessages(convoID: String, afterSeq: Int64, limit: Int) throws(DeliveryStoreError) -> [LoggedEvent] {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                let rows = try transaction.connection.query("""
                    SELECT e.event_seq, e.type, e.payload, e.created_at AS event_created_at, m.*
                    FROM events e
                    LEFT JOIN LATERAL (
                        SELECT \(MessageRow.columns) FROM messages
                        WHERE messages.convo_id = e.convo_id AND e.type = 'messageEvent'
                          AND messages.seq = (e.payload->>'seq')::bigint
                    ) m ON true
                    WHERE e.convo_id = $1 AND e.event_seq > $2 ORDER BY e.event_seq LIMIT $3
                    """, [convoID, afterSeq, Int64(limit)])
                return try rows.map { row in
                    guard let kind = ConvoEvent.Kind(rawValue: try row.string("type")) else {
                        throw StoreError.decoding("unknown event type")
                    }
                    let event = ConvoEvent(convoID: convoID, seq: try row.int64("event_seq"), kind: kind,
                                           payload: try row.string("payload"), createdAt: try row.date("event_created_at"))
                    return LoggedEvent(event: event, message: try row.isNull("seq") ? nil : MessageRow(row: row))
                }
            }
        }
    }
}
