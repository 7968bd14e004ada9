import ChatProtocol
import Foundation
import Store

/// A device's visibility interval that just ended (its removal tombstone, `accessEndedEvent`).
public struct ChatEndedInterval: Sendable {
    public var intervalID: ChatUUID
    public var conversationID: ChatUUID
    public var did: String
    public var deviceID: ChatUUID
    public var terminalSeq: Int64
    public var endedAt: Date
}

extension ChatTransaction {
    /// How an interval ended (migration 0036).
    public enum IntervalEnd: String, Sendable { case removed, replaced, reset, closed }

    /// The devices' leaves leave the conversation at `seq` (inclusive): their rows go and their
    /// intervals end. Returns the intervals ended.
    @discardableResult
    public func endLeaves(_ conversation: ChatUUID, _ devices: [(did: String, device: ChatUUID)], at seq: Int64,
                          how: IntervalEnd) throws -> [ChatEndedInterval] {
        var ended: [ChatEndedInterval] = []
        for (did, device) in devices {
            let rows = try connection.query("""
                DELETE FROM chat_leaves WHERE conversation_id = $1 AND user_did = $2 AND device_id = $3 RETURNING interval_id
                """, [conversation, did, device])
            for row in rows {
                let interval = try row.chatUUID("interval_id")
                try connection.execute("UPDATE chat_intervals SET end_seq = $2, ended_at = $3, end_kind = $4 WHERE interval_id = $1",
                                       [interval, seq, now, how.rawValue])
                ended.append(ChatEndedInterval(intervalID: interval, conversationID: conversation, did: did, deviceID: device,
                                               terminalSeq: seq, endedAt: now))
            }
        }
        return ended
    }

    /// Every leaf of the conversation leaves at `seq` (a reset or a close).
    public func endAllLeaves(_ conversation: ChatUUID, at seq: Int64, how: IntervalEnd) throws -> [ChatEndedInterval] {
        try endLeaves(conversation, try leaves(conversation).map { ($0.did, $0.deviceID) }, at: seq, how: how)
    }

    public func addParticipant(_ conversation: ChatUUID, _ participant: ChatParticipant) throws {
        try connection.execute("""
            INSERT INTO chat_participants (conversation_id, user_did, role, status, provenance) VALUES ($1, $2, $3, $4, $5)
            """, [conversation, participant.did, participant.role, participant.status, participant.provenance])
    }

    public func removeParticipant(_ conversation: ChatUUID, did: String) throws {
        try connection.execute("DELETE FROM chat_participants WHERE conversation_id = $1 AND user_did = $2", [conversation, did])
        // Its open recovery requests go with it, their KeyPackages released.
        for row in try connection.query("""
            SELECT recovery_request_id FROM chat_recoveries WHERE conversation_id = $1 AND requester_did = $2 AND status = 'open'
            """, [conversation, did]) {
            try closeRecovery(try row.chatUUID("recovery_request_id"), status: "cancelled")
        }
    }

    public func setRole(_ conversation: ChatUUID, did: String, role: String) throws {
        try connection.execute("UPDATE chat_participants SET role = $3 WHERE conversation_id = $1 AND user_did = $2",
                               [conversation, did, role])
    }

    /// Pending Welcomes of the conversation are superseded (a reset or a close ends the generation
    /// they join; the reset's recipients recover into the new one). Returns them, for their events.
    public func supersedeWelcomes(_ conversation: ChatUUID) throws -> [ChatWelcome] {
        let rows = try connection.query("""
            UPDATE chat_welcomes SET status = 'superseded', terminal_at = $2 WHERE conversation_id = $1 AND status = 'pending'
            RETURNING \(Self.welcomeColumns)
            """, [conversation, now])
        return try rows.map(Self.welcome)
    }

    /// Every open recovery request of the conversation is superseded (a reset or a close).
    public func supersedeAllRecoveries(_ conversation: ChatUUID) throws -> [ChatRecovery] {
        let rows = try connection.query("""
            SELECT \(Self.recoveryColumns) FROM chat_recoveries r JOIN chat_key_packages k USING (key_package_ref)
            WHERE r.conversation_id = $1 AND r.status = 'open' FOR UPDATE OF r
            """, [conversation])
        let open = try rows.map(Self.recovery)
        for recovery in open { try closeRecovery(recovery.id, status: "superseded") }
        return open
    }

    /// A conversation closes: its coordinates become `retired` (superseded), its pair may start a new
    /// direct conversation, and its close is recorded for the tombstone.
    public func close(_ conversation: ChatUUID, retired: ConversationCoordinates, by did: String, device: ChatUUID, terminalSeq: Int64) throws {
        try advance(conversation, to: retired)
        try connection.execute("""
            UPDATE chat_conversations SET direct_pair = NULL, closed_at = $2, closed_by_did = $3, closed_by_device_id = $4,
                terminal_seq = $5 WHERE conversation_id = $1
            """, [conversation, now, did, device, terminalSeq])
    }

    /// A new generation (activateReset): `successor` coordinates and public state.
    public func startGeneration(_ conversation: ChatUUID, successor: ConversationCoordinates, publicState: [UInt8],
                                metadataSnapshot: [UInt8]) throws {
        try advance(conversation, to: successor, publicState: publicState, metadataSnapshot: metadataSnapshot)
    }

    /// Pending recovery work of the conversation is superseded by `transitionID` (a reset or a close).
    public func supersedeRecoveryWork(_ conversation: ChatUUID, transitionID: ChatUUID) throws {
        try connection.execute("""
            UPDATE chat_recovery_work SET status = 'superseded', terminal_transition_id = $2, terminal_at = $3
            WHERE conversation_id = $1 AND status = 'pending'
            """, [conversation, transitionID, now])
    }

    /// A device's pending Welcomes past their end are expired, each becoming recovery work (the
    /// recovery inbox settles them before it is read). Returns them, for their events.
    public func settleExpiredWelcomes(did: String, device: ChatUUID) throws -> [ChatWelcome] {
        let ids = try connection.query("""
            SELECT welcome_id FROM chat_welcomes WHERE recipient_did = $1 AND recipient_device_id = $2 AND status = 'pending'
              AND expires_at <= $3 ORDER BY welcome_id LIMIT 100
            """, [did, device, now]).map { try $0.chatUUID("welcome_id") }
        return try ids.compactMap { try welcome($0, lock: true) }.filter { $0.status == "expired" }
    }

    /// The conversation whose current group has this id, if any.
    public func conversationID(group: [UInt8]) throws -> ChatUUID? {
        try connection.query("SELECT conversation_id FROM chat_conversations WHERE group_id = $1", [group])
            .first.map { try $0.chatUUID("conversation_id") }
    }
}
