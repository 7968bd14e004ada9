import ChatProtocol
import Foundation
import Store

/// A leave or reset request (`#leaveRequestView`, `#resetRequestView`): recorded against the
/// coordinates it was made at, pending until acted on, cancelled, expired, or made stale by any
/// change of those coordinates.
public struct ChatRequest: Sendable {
    public enum Kind: String, Sendable {
        case leave = "chat_leave_requests"
        case reset = "chat_reset_requests"

        var idColumn: String { self == .leave ? "leave_request_id" : "reset_request_id" }
    }

    public var kind: Kind
    public var id: ChatUUID
    public var conversationID: ChatUUID
    public var requesterDID: String
    public var requesterDeviceID: ChatUUID
    public var prior: ConversationCoordinates
    /// A reset request's reason; nil for a leave request.
    public var reason: String?
    public var status: String
    public var requestedAt: Date
    public var expiresAt: Date
}

extension ChatTransaction {
    /// How long a leave or reset request stays pending.
    public static let requestLifetime: TimeInterval = 24 * 3600

    private func columns(_ kind: ChatRequest.Kind) -> String {
        "\(kind.idColumn) AS id, conversation_id, requester_did, requester_device_id, prior, status, requested_at, expires_at"
            + (kind == .reset ? ", reason" : ", NULL::text AS reason")
    }

    private func request(_ kind: ChatRequest.Kind, from row: PGRow) throws -> ChatRequest {
        guard let prior = ConversationCoordinates(json: try row.bytes("prior")) else { throw StoreError.decoding("prior") }
        return ChatRequest(kind: kind, id: try row.chatUUID("id"), conversationID: try row.chatUUID("conversation_id"),
                           requesterDID: try row.string("requester_did"), requesterDeviceID: try row.chatUUID("requester_device_id"),
                           prior: prior, reason: try row.optionalString("reason"), status: try row.string("status"),
                           requestedAt: try row.date("requested_at"), expiresAt: try row.date("expires_at"))
    }

    /// Records a pending request; `LeaveAlreadyPending` / `ResetAlreadyPending` when one is.
    public func openRequest(_ kind: ChatRequest.Kind, id: ChatUUID, prior: ConversationCoordinates, requester: String, device: ChatUUID,
                            reason: String? = nil) throws -> ChatRequest {
        try expireRequests(kind, prior.conversationID)
        let scope = kind == .leave ? " AND requester_did = $2" : ""
        let pending = try connection.query(
            "SELECT 1 FROM \(kind.rawValue) WHERE conversation_id = $1 AND status = 'pending'\(scope)",
            kind == .leave ? [prior.conversationID, requester] : [prior.conversationID])
        guard pending.isEmpty else {
            throw kind == .leave ? ChatRefusal(.leaveAlreadyPending, "a leave request of this account is pending")
                                 : ChatRefusal(.resetAlreadyPending, "a reset of this conversation is requested already")
        }
        let expires = now.addingTimeInterval(Self.requestLifetime)
        if kind == .leave {
            try connection.execute("""
                INSERT INTO chat_leave_requests (leave_request_id, conversation_id, requester_did, requester_device_id, prior,
                    bound_state_version, status, requested_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8)
                """, [id, prior.conversationID, requester, device, prior.json, Int64(prior.stateVersion), now, expires])
        } else {
            try connection.execute("""
                INSERT INTO chat_reset_requests (reset_request_id, conversation_id, requester_did, requester_device_id, prior,
                    bound_state_version, reason, status, requested_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9)
                """, [id, prior.conversationID, requester, device, prior.json, Int64(prior.stateVersion), reason ?? "", now, expires])
        }
        return try request(kind, id: id)!
    }

    public func request(_ kind: ChatRequest.Kind, id: ChatUUID, lock: Bool = false) throws -> ChatRequest? {
        try connection.query("SELECT \(columns(kind)) FROM \(kind.rawValue) WHERE \(kind.idColumn) = $1\(lock ? " FOR UPDATE" : "")", [id])
            .first.map { try request(kind, from: $0) }
    }

    public func setStatus(_ kind: ChatRequest.Kind, id: ChatUUID, _ status: String) throws {
        try connection.execute("UPDATE \(kind.rawValue) SET status = $2 WHERE \(kind.idColumn) = $1", [id, status])
    }

    /// Pending requests of a conversation (getConversationState), oldest first, at most 100.
    public func pendingRequests(_ kind: ChatRequest.Kind, _ conversation: ChatUUID) throws -> [ChatRequest] {
        try expireRequests(kind, conversation)
        return try connection.query("""
            SELECT \(columns(kind)) FROM \(kind.rawValue) WHERE conversation_id = $1 AND status = 'pending'
            ORDER BY requested_at LIMIT 100
            """, [conversation]).map { try request(kind, from: $0) }
    }

    /// Pending requests past their end are expired (when next touched; no job does it).
    public func expireRequests(_ kind: ChatRequest.Kind, _ conversation: ChatUUID) throws {
        try connection.execute("""
            UPDATE \(kind.rawValue) SET status = 'expired' WHERE conversation_id = $1 AND status = 'pending' AND expires_at <= $2
            """, [conversation, now])
    }

    /// Pending requests made at `stateVersion` become stale as the coordinates leave it (those past
    /// their end expire instead); the stale ones are returned, for their events.
    public func staleRequests(_ kind: ChatRequest.Kind, _ conversation: ChatUUID, stateVersion: UInt64) throws -> [ChatRequest] {
        try expireRequests(kind, conversation)
        return try connection.query("""
            UPDATE \(kind.rawValue) SET status = 'stale' WHERE conversation_id = $1 AND status = 'pending' AND bound_state_version = $2
            RETURNING \(columns(kind))
            """, [conversation, Int64(stateVersion)]).map { try request(kind, from: $0) }
    }

    /// Every pending request of the conversation becomes stale (a close or a reset, which end the generation).
    public func staleAllRequests(_ kind: ChatRequest.Kind, _ conversation: ChatUUID) throws -> [ChatRequest] {
        try expireRequests(kind, conversation)
        return try connection.query("""
            UPDATE \(kind.rawValue) SET status = 'stale' WHERE conversation_id = $1 AND status = 'pending' RETURNING \(columns(kind))
            """, [conversation]).map { try request(kind, from: $0) }
    }
}
