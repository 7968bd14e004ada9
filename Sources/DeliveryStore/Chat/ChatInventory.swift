import ChatProtocol
import Foundation
import Store

/// An inventory session (getConversations, getPendingWelcomes, getLeafRecoveryInbox) of one
/// device as of one event position, and whether each of its three lists was paged to the end.
public struct ChatInventorySession: Sendable {
    public enum Part: String, Sendable { case conversations, welcomes, recovery }

    public var id: String
    public var userDID: String
    public var deviceID: ChatUUID
    public var authGeneration: Int64
    public var position: Int64
    public var done: Set<Part>
    public var expiresAt: Date
}

/// A subscription ticket, once consumed: whose stream, from which position.
public struct ChatTicket: Sendable {
    public var userDID: String
    public var deviceID: ChatUUID
    public var authGeneration: Int64
    public var position: Int64
}

/// One event of a device's stream.
public struct ChatStoredEvent: Sendable {
    public var position: Int64
    /// The `#protocolEventPayload` member, canonical DAG-CBOR of its data.
    public var payload: [UInt8]
    public var createdAt: Date
}

extension ChatTransaction {
    /// How long an inventory session (and so its snapshot) stays usable.
    public static let inventoryLifetime: TimeInterval = 600
    /// How long a subscription ticket stays usable.
    public static let ticketLifetime: TimeInterval = 60

    /// The newest event position.
    public func eventHead() throws -> Int64 {
        try connection.query("SELECT position FROM chat_event_head WHERE id = 1").first!.int64("position")
    }

    public func openInventorySession(id: String, did: String, device: ChatUUID, authGeneration: Int64) throws -> ChatInventorySession {
        let session = ChatInventorySession(id: id, userDID: did, deviceID: device, authGeneration: authGeneration,
                                           position: try eventHead(), done: [], expiresAt: now.addingTimeInterval(Self.inventoryLifetime))
        try connection.execute("""
            INSERT INTO chat_inventory_sessions (session_id, user_did, device_id, auth_generation, snapshot_position, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6)
            """, [id, did, device, authGeneration, session.position, session.expiresAt])
        return session
    }

    public func inventorySession(_ id: String) throws -> ChatInventorySession? {
        try connection.query("""
            SELECT session_id, user_did, device_id, auth_generation, snapshot_position, conversations_done, welcomes_done,
                   recovery_done, expires_at FROM chat_inventory_sessions WHERE session_id = $1
            """, [id]).first.map { row in
            var done: Set<ChatInventorySession.Part> = []
            if try row.bool("conversations_done") { done.insert(.conversations) }
            if try row.bool("welcomes_done") { done.insert(.welcomes) }
            if try row.bool("recovery_done") { done.insert(.recovery) }
            return ChatInventorySession(id: try row.string("session_id"), userDID: try row.string("user_did"),
                                        deviceID: try row.chatUUID("device_id"), authGeneration: try row.int64("auth_generation"),
                                        position: try row.int64("snapshot_position"), done: done, expiresAt: try row.date("expires_at"))
        }
    }

    public func markInventory(_ id: String, done part: ChatInventorySession.Part) throws {
        try connection.execute("UPDATE chat_inventory_sessions SET \(part.rawValue)_done = true WHERE session_id = $1", [id])
    }

    public func issueTicket(hash: [UInt8], session: ChatInventorySession) throws -> Date {
        let expires = now.addingTimeInterval(Self.ticketLifetime)
        try connection.execute("""
            INSERT INTO chat_tickets (ticket_hash, user_did, device_id, auth_generation, session_id, position, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """, [hash, session.userDID, session.deviceID, session.authGeneration, session.id, session.position, expires])
        return expires
    }

    /// Uses a ticket up, if it exists, is unused and unexpired, and names `position`.
    public func consumeTicket(hash: [UInt8], position: Int64) throws -> ChatTicket? {
        try connection.query("""
            UPDATE chat_tickets SET consumed_at = $3
            WHERE ticket_hash = $1 AND position = $2 AND consumed_at IS NULL AND expires_at > $3
            RETURNING user_did, device_id, auth_generation, position
            """, [hash, position, now]).first.map { row in
            ChatTicket(userDID: try row.string("user_did"), deviceID: try row.chatUUID("device_id"),
                       authGeneration: try row.int64("auth_generation"), position: try row.int64("position"))
        }
    }

    /// A device's events after `position`, oldest first.
    public func deviceEvents(did: String, device: ChatUUID, after position: Int64, limit: Int) throws -> [ChatStoredEvent] {
        try connection.query("""
            SELECT position, payload, created_at FROM chat_device_events
            WHERE user_did = $1 AND device_id = $2 AND position > $3 ORDER BY position LIMIT $4
            """, [did, device, position, Int64(limit)]).map { row in
            ChatStoredEvent(position: try row.int64("position"), payload: try row.bytes("payload"), createdAt: try row.date("created_at"))
        }
    }

    /// Events at positions after `position`, for every device (one node's hub, to hand them to its
    /// local subscribers).
    public func events(after position: Int64, limit: Int) throws -> [(did: String, device: ChatUUID, event: ChatStoredEvent)] {
        try connection.query("""
            SELECT user_did, device_id, position, payload, created_at FROM chat_device_events
            WHERE position > $1 ORDER BY position LIMIT $2
            """, [position, Int64(limit)]).map { row in
            (try row.string("user_did"), try row.chatUUID("device_id"),
             ChatStoredEvent(position: try row.int64("position"), payload: try row.bytes("payload"), createdAt: try row.date("created_at")))
        }
    }
}
