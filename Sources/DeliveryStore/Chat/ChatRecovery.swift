import ChatProtocol
import Foundation
import Store

/// A leaf recovery request (`#leafRecoveryView`) and the KeyPackage reserved for it.
public struct ChatRecovery: Sendable {
    public var id: ChatUUID
    public var conversationID: ChatUUID
    public var generation: Int64
    public var requesterDID: String
    public var requesterDeviceID: ChatUUID
    public var requesterKeyID: String
    public var requesterAuthGeneration: Int64
    public var kind: String
    public var boundCoordinate: ConversationCoordinates
    public var keyPackageRef: [UInt8]
    /// The reserved KeyPackage's MLSMessage bytes.
    public var keyPackage: [UInt8]
    public var status: String
    public var reservationStatus: String
    public var requestedAt: Date
    public var expiresAt: Date
}

extension ChatTransaction {
    /// A recovery request stays open at most this long (and never past its KeyPackage's end).
    public static let recoveryLifetime: TimeInterval = 24 * 3600
    /// A reserved KeyPackage must have at least this much life left (defs `deviceLeaf`).
    public static let minimumPackageLife: TimeInterval = 600

    static let recoveryColumns = """
        r.recovery_request_id, r.conversation_id, r.generation, r.requester_did, r.requester_device_id, r.requester_key_id,
        r.requester_auth_generation, r.kind, r.bound_coordinate, r.key_package_ref, r.status, r.reservation_status,
        r.requested_at, r.expires_at, k.wrapper
        """

    static func recovery(from row: PGRow) throws -> ChatRecovery {
        guard let bound = ConversationCoordinates(json: try row.bytes("bound_coordinate")) else {
            throw StoreError.decoding("bound_coordinate")
        }
        return ChatRecovery(
            id: try row.chatUUID("recovery_request_id"), conversationID: try row.chatUUID("conversation_id"),
            generation: try row.int64("generation"), requesterDID: try row.string("requester_did"),
            requesterDeviceID: try row.chatUUID("requester_device_id"), requesterKeyID: try row.string("requester_key_id"),
            requesterAuthGeneration: try row.int64("requester_auth_generation"), kind: try row.string("kind"),
            boundCoordinate: bound, keyPackageRef: try row.bytes("key_package_ref"), keyPackage: try row.bytes("wrapper"),
            status: try row.string("status"), reservationStatus: try row.string("reservation_status"),
            requestedAt: try row.date("requested_at"), expiresAt: try row.date("expires_at"))
    }

    public func recovery(_ id: ChatUUID, lock: Bool = false) throws -> ChatRecovery? {
        try connection.query("""
            SELECT \(Self.recoveryColumns) FROM chat_recoveries r JOIN chat_key_packages k USING (key_package_ref)
            WHERE r.recovery_request_id = $1\(lock ? " FOR UPDATE OF r" : "")
            """, [id]).first.map(Self.recovery)
    }

    /// Opens a recovery request bound to `bound` for a device and reserves one of its KeyPackages
    /// (the one with the smallest ref among those that live long enough): `LeafRecoveryAlreadyOpen`
    /// when the device has an open one here, `KeyPackageUnavailable` when it has none to reserve.
    public func openRecovery(id: ChatUUID, kind: String, bound: ConversationCoordinates, requester: ChatDevice) throws -> ChatRecovery {
        let open = try connection.query("""
            SELECT 1 FROM chat_recoveries WHERE conversation_id = $1 AND generation = $2 AND requester_did = $3
                AND requester_device_id = $4 AND status = 'open' AND expires_at > $5
            """, [bound.conversationID, Int64(bound.generation), requester.userDID, requester.deviceID, now])
        guard open.isEmpty else { throw ChatRefusal(.leafRecoveryAlreadyOpen, "this device already has an open recovery request here") }
        // An open request past its expiry is closed first, so that it does not block this one.
        try connection.execute("""
            UPDATE chat_recoveries SET status = 'expired', reservation_status = 'expired'
            WHERE conversation_id = $1 AND generation = $2 AND requester_did = $3 AND requester_device_id = $4 AND status = 'open'
            """, [bound.conversationID, Int64(bound.generation), requester.userDID, requester.deviceID])
        let reserved = try connection.query("""
            UPDATE chat_key_packages SET status = 'reserved', reserved_for = $3
            WHERE key_package_ref = (SELECT key_package_ref FROM chat_key_packages
                                     WHERE owner_did = $1 AND owner_device_id = $2 AND status = 'available' AND not_after > $4
                                     ORDER BY key_package_ref LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING key_package_ref, not_after
            """, [requester.userDID, requester.deviceID, id, now.addingTimeInterval(Self.minimumPackageLife)])
        guard let package = reserved.first else {
            throw ChatRefusal(.keyPackageUnavailable, "the device has no KeyPackage left to reserve")
        }
        let expires = min(now.addingTimeInterval(Self.recoveryLifetime), try package.date("not_after"))
        try connection.execute("""
            INSERT INTO chat_recoveries (recovery_request_id, conversation_id, generation, requester_did, requester_device_id,
                requester_key_id, requester_auth_generation, kind, bound_coordinate, bound_state_version, key_package_ref, status,
                reservation_status, requested_at, expires_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'open', 'active', $12, $13)
            """, [id, bound.conversationID, Int64(bound.generation), requester.userDID, requester.deviceID, requester.keyID,
                  requester.authGeneration, kind, bound.json, Int64(bound.stateVersion), try package.bytes("key_package_ref"), now, expires])
        return try recovery(id)!
    }

    /// Closes an open request (cancelled or fulfilled) and settles its KeyPackage (released or consumed).
    public func closeRecovery(_ id: ChatUUID, status: String) throws {
        let reservation = status == "fulfilled" ? "consumed" : "released"
        try connection.execute("UPDATE chat_recoveries SET status = $2, reservation_status = $3 WHERE recovery_request_id = $1",
                               [id, status, reservation])
        try connection.execute("""
            UPDATE chat_key_packages SET status = $2, reserved_for = CASE WHEN $2 = 'consumed' THEN reserved_for END
            WHERE reserved_for = $1 AND status = 'reserved'
            """, [id, status == "fulfilled" ? "consumed" : "available"])
    }

    /// Every request still open at a conversation's state version `stateVersion` (but `except`) is
    /// superseded by the transition leaving it, and its KeyPackage released (defs
    /// `leafRecoveryRequestBody`). Returns them, for their events.
    public func supersedeRecoveries(_ conversation: ChatUUID, stateVersion: UInt64, except: ChatUUID?) throws -> [ChatRecovery] {
        let rows = try connection.query("""
            SELECT \(Self.recoveryColumns) FROM chat_recoveries r JOIN chat_key_packages k USING (key_package_ref)
            WHERE r.conversation_id = $1 AND r.bound_state_version = $2 AND r.status = 'open' AND r.recovery_request_id <> $3
            FOR UPDATE OF r
            """, [conversation, Int64(stateVersion), except?.bytes ?? []])
        let superseded = try rows.map(Self.recovery)
        for recovery in superseded { try closeRecovery(recovery.id, status: "superseded") }
        return superseded
    }

    /// Open requests a device may see in its recovery inbox: its own, and those of other devices in
    /// conversations where it holds a leaf and so may fulfil them (docs/chat.md), by id after `after`.
    public func inboxRecoveries(did: String, device: ChatUUID, after: ChatUUID?, limit: Int) throws -> [ChatRecovery] {
        try connection.query("""
            SELECT \(Self.recoveryColumns) FROM chat_recoveries r JOIN chat_key_packages k USING (key_package_ref)
            WHERE r.status = 'open' AND r.expires_at > $5 AND ($3::bytea IS NULL OR r.recovery_request_id > $3)
              AND ((r.requester_did = $1 AND r.requester_device_id = $2)
                   OR EXISTS (SELECT 1 FROM chat_leaves l WHERE l.conversation_id = r.conversation_id
                              AND l.user_did = $1 AND l.device_id = $2))
            ORDER BY r.recovery_request_id LIMIT $4
            """, [did, device, after, Int64(limit), now]).map(Self.recovery)
    }
}
