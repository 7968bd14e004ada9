import ChatProtocol
import Foundation
import Store

/// A device's interval that ended (`#conversationRemovalTombstone` when it ended by removal).
public struct ChatIntervalRecord: Sendable {
    public var intervalID: ChatUUID
    public var startSeq: Int64
    public var endSeq: Int64?
    public var endedAt: Date?
    public var endKind: String?
}

/// How a conversation was closed (`#conversationCloseTombstone`).
public struct ChatCloseRecord: Sendable {
    public var closedByDID: String
    public var closedByDeviceID: ChatUUID
    public var terminalSeq: Int64
    public var closedAt: Date
}

extension ChatTransaction {
    /// The conversations a device's inventory lists, by id after `after`: those its account takes
    /// part in, and those where the device had an interval (whose tombstones it sees).
    public func inventoryConversationIDs(did: String, device: ChatUUID, after: ChatUUID?, limit: Int) throws -> [ChatUUID] {
        try connection.query("""
            SELECT conversation_id FROM (
                SELECT conversation_id FROM chat_participants WHERE user_did = $1
                UNION SELECT conversation_id FROM chat_intervals WHERE user_did = $1 AND device_id = $2
            ) c WHERE $3::bytea IS NULL OR conversation_id > $3 ORDER BY conversation_id LIMIT $4
            """, [did, device, after, Int64(limit)]).map { try $0.chatUUID("conversation_id") }
    }

    /// The device's latest interval in the conversation.
    public func latestInterval(_ conversation: ChatUUID, did: String, device: ChatUUID) throws -> ChatIntervalRecord? {
        try connection.query("""
            SELECT interval_id, start_seq, end_seq, ended_at, end_kind FROM chat_intervals
            WHERE conversation_id = $1 AND user_did = $2 AND device_id = $3 ORDER BY start_seq DESC, end_seq DESC NULLS FIRST LIMIT 1
            """, [conversation, did, device]).first.map { row in
            ChatIntervalRecord(intervalID: try row.chatUUID("interval_id"), startSeq: try row.int64("start_seq"),
                               endSeq: try row.optionalInt64("end_seq"), endedAt: try row.optionalDate("ended_at"),
                               endKind: try row.optionalString("end_kind"))
        }
    }

    /// The conversation's close, if it was closed.
    public func closeRecord(_ conversation: ChatUUID) throws -> ChatCloseRecord? {
        try connection.query("""
            SELECT closed_by_did, closed_by_device_id, terminal_seq, closed_at FROM chat_conversations
            WHERE conversation_id = $1 AND closed_at IS NOT NULL
            """, [conversation]).first.map { row in
            ChatCloseRecord(closedByDID: try row.string("closed_by_did"), closedByDeviceID: try row.chatUUID("closed_by_device_id"),
                            terminalSeq: try row.int64("terminal_seq"), closedAt: try row.date("closed_at"))
        }
    }
}
