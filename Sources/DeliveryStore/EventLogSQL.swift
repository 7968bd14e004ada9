/// A conversation's event log as its readers see it (migration 0015): the events rows (membership
/// changes, epochs) merged by event_seq with the messages, each of which is its own messageEvent
/// with the payload `{seq, msgId, epoch, sender, messageType}` built from its columns.
///
/// Parameters: `$1` the conversation, `$2` the event seq to read after, `$3` the limit. Each side
/// is a range scan of its (convo_id, event_seq) index cut at the limit, so a read costs what it
/// returns, however long the log.
enum EventLogSQL {
    /// Columns `event_seq, type, payload, event_created_at`.
    static let events = merged(withMessages: false)
    /// `events`' columns, then the message of a messageEvent (`MessageRow.columns`, NULL for other
    /// events).
    static let eventsWithMessages = merged(withMessages: true)

    private static func merged(withMessages: Bool) -> String {
        let eventSide = withMessages ? ", " + nullMessageColumns : ""
        let messageSide = withMessages ? ", " + MessageRow.columns : ""
        return """
            SELECT * FROM (
                (SELECT event_seq, type, payload, created_at AS event_created_at\(eventSide)
                 FROM events WHERE convo_id = $1 AND event_seq > $2 ORDER BY event_seq LIMIT $3)
                UNION ALL
                (SELECT event_seq, 'messageEvent' AS type,
                        jsonb_build_object('seq', seq, 'msgId', msg_id, 'epoch', epoch, 'sender', sender_did,
                                           'messageType', message_type) AS payload,
                        created_at AS event_created_at\(messageSide)
                 FROM messages WHERE convo_id = $1 AND event_seq > $2 ORDER BY event_seq LIMIT $3)
            ) log ORDER BY event_seq LIMIT $3
            """
    }

    /// `MessageRow.columns` as typed NULLs, for the events side of the union.
    private static let nullMessageColumns = """
        NULL::text AS convo_id, NULL::int8 AS seq, NULL::text AS msg_id, NULL::int8 AS epoch, \
        NULL::text AS message_type, NULL::text AS sender_did, NULL::bytea AS ciphertext, NULL::bytea AS content_hash, \
        NULL::int4 AS size, NULL::int4 AS padded_size, NULL::timestamptz AS created_at
        """
}
