import Foundation
import Store

extension DeliveryTransaction {
    /// Appends events to the conversation's log (its row must be locked, which keeps event_seq
    /// dense and in commit order) and announces the newest on the event channel. Messages are not
    /// among them: each is its own messageEvent (`nextSeq`).
    func appendEvents(_ convoID: String, _ events: [PendingEvent]) throws {
        guard !events.isEmpty else { return }
        let rows = try connection.query("""
            WITH counter AS (
                UPDATE convos SET last_event_seq = last_event_seq + $2
                WHERE convo_id = $1 RETURNING last_event_seq - $2 AS base
            )
            INSERT INTO events (convo_id, event_seq, type, payload)
            SELECT $1, counter.base + e.ord, e.type, e.payload::jsonb
            FROM counter, unnest($3::text[], $4::text[]) WITH ORDINALITY AS e(type, payload, ord)
            RETURNING event_seq
            """, [convoID, Int64(events.count), PGArray(events.map(\.kind.rawValue)), PGArray(events.map(\.payload))])
        guard let last = try rows.map({ try $0.int64("event_seq") }).max() else { throw DeliveryStoreError.convoNotFound }
        try announceEvents(convoID, through: last)
    }

    /// Announces the conversation's events through `last` on the event channel; the NOTIFY is
    /// delivered when the transaction commits.
    func announceEvents(_ convoID: String, through last: Int64) throws {
        try connection.execute("SELECT pg_notify($1, $2)", [configuration.eventChannel, "\(convoID) \(last)"])
    }

    /// The conversation's events after `afterSeq`, oldest first.
    public func events(convoID: String, afterSeq: Int64 = 0, limit: Int = 100) throws(DeliveryStoreError) -> [ConvoEvent] {
        try guarded {
            let rows = try connection.query(EventLogSQL.events, [convoID, afterSeq, Int64(limit)])
            return try rows.map { row in try ConvoEvent(convoID: convoID, row: row) }
        }
    }
}

extension ConvoEvent {
    /// An event from a row of `EventLogSQL`.
    init(convoID: String, row: PGRow) throws {
        guard let kind = ConvoEvent.Kind(rawValue: try row.string("type")) else {
            throw StoreError.decoding("unknown event type")
        }
        self.init(convoID: convoID, seq: try row.int64("event_seq"), kind: kind, payload: try row.string("payload"),
                  createdAt: try row.date("event_created_at"))
    }
}
