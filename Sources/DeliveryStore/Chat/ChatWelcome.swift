import ChatProtocol
import Foundation
import Store

/// A Welcome for one device (`#welcomeView`): the bytes, the transition that made it, the
/// recovery it fulfilled and its disposition.
public struct ChatWelcome: Sendable {
    public var id: ChatUUID
    public var conversationID: ChatUUID
    public var transitionSeq: Int64
    public var coordinates: ConversationCoordinates
    public var status: String
    public var opaqueWelcome: [UInt8]
    public var sha256: [UInt8]
    public var recipientDID: String
    public var recipientDeviceID: ChatUUID
    public var recoveryRequestID: ChatUUID
    public var keyPackageRef: [UInt8]
    public var expiresAt: Date
    public var terminalAt: Date?

    public init(id: ChatUUID, conversationID: ChatUUID, transitionSeq: Int64, coordinates: ConversationCoordinates, status: String,
                opaqueWelcome: [UInt8], sha256: [UInt8], recipientDID: String, recipientDeviceID: ChatUUID,
                recoveryRequestID: ChatUUID, keyPackageRef: [UInt8], expiresAt: Date, terminalAt: Date? = nil) {
        self.id = id
        self.conversationID = conversationID
        self.transitionSeq = transitionSeq
        self.coordinates = coordinates
        self.status = status
        self.opaqueWelcome = opaqueWelcome
        self.sha256 = sha256
        self.recipientDID = recipientDID
        self.recipientDeviceID = recipientDeviceID
        self.recoveryRequestID = recoveryRequestID
        self.keyPackageRef = keyPackageRef
        self.expiresAt = expiresAt
        self.terminalAt = terminalAt
    }
}

/// Recovery work (`#recoveryWorkView`): a Welcome the device rejected, or let expire.
public struct ChatRecoveryWork: Sendable {
    public var id: ChatUUID
    public var conversationID: ChatUUID
    public var recipientDID: String
    public var recipientDeviceID: ChatUUID
    public var sourceKind: String
    public var sourceID: ChatUUID
    public var sourceCoordinate: ConversationCoordinates
    public var status: String
    public var createdAt: Date
    public var terminalTransitionID: ChatUUID?
    public var terminalAt: Date?
}

extension ChatTransaction {
    static let welcomeColumns = """
        welcome_id, conversation_id, transition_seq, coordinates, status, opaque_welcome, sha256, recipient_did,
        recipient_device_id, recovery_request_id, key_package_ref, expires_at, terminal_at
        """

    static func welcome(from row: PGRow) throws -> ChatWelcome {
        guard let coordinates = ConversationCoordinates(json: try row.bytes("coordinates")) else { throw StoreError.decoding("coordinates") }
        return ChatWelcome(
            id: try row.chatUUID("welcome_id"), conversationID: try row.chatUUID("conversation_id"),
            transitionSeq: try row.int64("transition_seq"), coordinates: coordinates, status: try row.string("status"),
            opaqueWelcome: try row.bytes("opaque_welcome"), sha256: try row.bytes("sha256"), recipientDID: try row.string("recipient_did"),
            recipientDeviceID: try row.chatUUID("recipient_device_id"), recoveryRequestID: try row.chatUUID("recovery_request_id"),
            keyPackageRef: try row.bytes("key_package_ref"), expiresAt: try row.date("expires_at"), terminalAt: try row.optionalDate("terminal_at"))
    }

    public func store(_ welcome: ChatWelcome) throws {
        try connection.execute("""
            INSERT INTO chat_welcomes (\(Self.welcomeColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, NULL)
            """, [welcome.id, welcome.conversationID, welcome.transitionSeq, welcome.coordinates.json, welcome.status,
                  welcome.opaqueWelcome, welcome.sha256, welcome.recipientDID, welcome.recipientDeviceID,
                  welcome.recoveryRequestID, welcome.keyPackageRef, welcome.expiresAt])
    }

    /// The Welcome, row locked; one still pending past its expiry is marked expired first (its
    /// recovery work created), so that every reader sees the same disposition.
    public func welcome(_ id: ChatUUID, lock: Bool = false) throws -> ChatWelcome? {
        guard var welcome = try connection.query(
            "SELECT \(Self.welcomeColumns) FROM chat_welcomes WHERE welcome_id = $1\(lock ? " FOR UPDATE" : "")", [id]
        ).first.map(Self.welcome) else { return nil }
        if lock, welcome.status == "pending", welcome.expiresAt <= now {
            try dispose(&welcome, status: "expired")
        }
        return welcome
    }

    /// Settles a pending Welcome (acknowledged, rejected, expired); a rejected or expired one
    /// becomes recovery work for its device.
    public func dispose(_ welcome: inout ChatWelcome, status: String) throws {
        try connection.execute("UPDATE chat_welcomes SET status = $2, terminal_at = $3 WHERE welcome_id = $1", [welcome.id, status, now])
        welcome.status = status
        welcome.terminalAt = now
        guard status == "rejected" || status == "expired" else { return }
        try connection.execute("""
            INSERT INTO chat_recovery_work (recovery_work_id, conversation_id, recipient_did, recipient_device_id, source_kind,
                source_id, source_coordinate, status, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8) ON CONFLICT (source_id) DO NOTHING
            """, [ChatUUID.random(), welcome.conversationID, welcome.recipientDID, welcome.recipientDeviceID,
                  status == "rejected" ? "welcomeRejected" : "welcomeExpired", welcome.id, welcome.coordinates.json, now])
    }

    /// A device's pending, unexpired Welcomes by id after `after`.
    public func pendingWelcomes(did: String, device: ChatUUID, after: ChatUUID?, limit: Int) throws -> [ChatWelcome] {
        try connection.query("""
            SELECT \(Self.welcomeColumns) FROM chat_welcomes
            WHERE recipient_did = $1 AND recipient_device_id = $2 AND status = 'pending' AND expires_at > $5
              AND ($3::bytea IS NULL OR welcome_id > $3)
            ORDER BY welcome_id LIMIT $4
            """, [did, device, after, Int64(limit), now]).map(Self.welcome)
    }

    /// A device's recovery work by id after `after`.
    public func recoveryWork(did: String, device: ChatUUID, after: ChatUUID?, limit: Int) throws -> [ChatRecoveryWork] {
        try connection.query("""
            SELECT recovery_work_id, conversation_id, recipient_did, recipient_device_id, source_kind, source_id, source_coordinate,
                   status, created_at, terminal_transition_id, terminal_at
            FROM chat_recovery_work
            WHERE recipient_did = $1 AND recipient_device_id = $2 AND ($3::bytea IS NULL OR recovery_work_id > $3)
            ORDER BY recovery_work_id LIMIT $4
            """, [did, device, after, Int64(limit)]).map { row in
            guard let coordinate = ConversationCoordinates(json: try row.bytes("source_coordinate")) else {
                throw StoreError.decoding("source_coordinate")
            }
            return ChatRecoveryWork(
                id: try row.chatUUID("recovery_work_id"), conversationID: try row.chatUUID("conversation_id"),
                recipientDID: try row.string("recipient_did"), recipientDeviceID: try row.chatUUID("recipient_device_id"),
                sourceKind: try row.string("source_kind"), sourceID: try row.chatUUID("source_id"), sourceCoordinate: coordinate,
                status: try row.string("status"), createdAt: try row.date("created_at"),
                terminalTransitionID: try row.optionalChatUUID("terminal_transition_id"), terminalAt: try row.optionalDate("terminal_at"))
        }
    }

    /// A device's pending recovery work in a conversation is completed by the transition that gave it a leaf.
    public func completeRecoveryWork(_ conversation: ChatUUID, did: String, device: ChatUUID, transitionID: ChatUUID) throws {
        try connection.execute("""
            UPDATE chat_recovery_work SET status = 'completed', terminal_transition_id = $4, terminal_at = $5
            WHERE conversation_id = $1 AND recipient_did = $2 AND recipient_device_id = $3 AND status = 'pending'
            """, [conversation, did, device, transitionID, now])
    }
}
