import ChatProtocol
import Store

/// Who receives a chat event (a `#protocolEventPayload` member). Each resolves, inside the
/// transaction that makes the change, to the devices entitled to it at that moment.
public enum ChatEventAudience: Sendable {
    /// The devices with a current leaf in the conversation, but one (the sender's).
    case leaves(conversation: ChatUUID, except: (did: String, device: ChatUUID)?)
    /// Every active device of every participant, pending invitees included: what they may see of a
    /// conversation's state.
    case participants(conversation: ChatUUID)
    /// One device.
    case device(did: String, device: ChatUUID)
    /// Every active device of an account (one that is no longer a participant).
    case account(did: String)
}

/// The events of one transaction, written at its end with consecutive positions taken under the
/// head row's lock (migration 0030): the lock is held to commit, so positions become visible in
/// order and a reader that has seen position p has seen all before it.
final class ChatEventBuffer {
    var pending: [(audience: ChatEventAudience, payload: [UInt8])] = []
}

extension ChatTransaction {
    /// Queues `payload` (a tagged `#protocolEventPayload` member) for `audience`.
    public func emit(_ payload: ChatValue, to audience: ChatEventAudience) {
        events.pending.append((audience, DAGCBOR.encode(payload.dagCBOR(.data))))
    }

    func flushEvents() throws {
        guard !events.pending.isEmpty else { return }
        let count = Int64(events.pending.count)
        let head = try connection.query(
            "UPDATE chat_event_head SET position = position + $1 WHERE id = 1 RETURNING position", [count]).first!.int64("position")
        var position = head - count
        for (audience, payload) in events.pending {
            position += 1
            switch audience {
            case .leaves(let conversation, let except):
                try connection.execute("""
                    INSERT INTO chat_device_events (user_did, device_id, position, payload, created_at)
                    SELECT l.user_did, l.device_id, $2, $3, $4 FROM chat_leaves l
                    JOIN chat_devices d ON d.user_did = l.user_did AND d.device_id = l.device_id AND d.status = 'active'
                    WHERE l.conversation_id = $1 AND NOT (l.user_did = $5 AND l.device_id = $6)
                    """, [conversation, position, payload, now, except?.did ?? "", except?.device.bytes ?? []])
            case .participants(let conversation):
                try connection.execute("""
                    INSERT INTO chat_device_events (user_did, device_id, position, payload, created_at)
                    SELECT d.user_did, d.device_id, $2, $3, $4 FROM chat_participants p
                    JOIN chat_devices d ON d.user_did = p.user_did AND d.status = 'active'
                    WHERE p.conversation_id = $1
                    """, [conversation, position, payload, now])
            case .device(let did, let device):
                try connection.execute("""
                    INSERT INTO chat_device_events (user_did, device_id, position, payload, created_at)
                    SELECT $1, $2, $3, $4, $5 WHERE EXISTS
                        (SELECT 1 FROM chat_devices WHERE user_did = $1 AND device_id = $2 AND status = 'active')
                    """, [did, device, position, payload, now])
            case .account(let did):
                try connection.execute("""
                    INSERT INTO chat_device_events (user_did, device_id, position, payload, created_at)
                    SELECT user_did, device_id, $2, $3, $4 FROM chat_devices WHERE user_did = $1 AND status = 'active'
                    """, [did, position, payload, now])
            }
        }
        try connection.execute("SELECT pg_notify('chat_events', $1)", [String(head)])
        events.pending.removeAll()
    }
}
