import Basics
import ChatProtocol
import Foundation
import Store

/// The chat contract's pushes (docs/chat.md, "Push"): a stored application message wakes the push
/// registrations (updatePushToken) of the conversation's leaf devices but the sender's account's,
/// through the push feature's outbox (source `chat`, kind `mlsMessage`, the conversation's UUID
/// text, the entry's seq, the epoch and the message id), and the dispatcher reads the PrivateMessage
/// back from the entry when it fits the payload. A device is a (DID, device UUID text) there.
enum ChatPushSQL {
    /// The outbox rows of the leaf devices of conversation `$5` but `$6`'s, for the message at seq
    /// `$2` (`$1` the conversation's UUID text, `$3` the epoch, `$4` the message id's text).
    static let enqueue = """
        INSERT INTO push_outbox AS o (\(PushOutboxSQL.columns))
        SELECT d.did, d.device_id, $1, '\(PushEvent.chatSource)', '\(PushEvent.messageKind)', $2, $3, $4, NULL::int8,
               clock_timestamp(), clock_timestamp()
        FROM chat_leaves l
        JOIN chat_devices cd ON cd.user_did = l.user_did AND cd.device_id = l.device_id AND cd.status = 'active'
        JOIN push_devices d ON d.did = l.user_did AND d.device_id = encode(l.device_id, 'hex')::uuid::text
        WHERE l.conversation_id = $5 AND l.user_did <> $6
        ORDER BY d.did, d.device_id
        \(PushOutboxSQL.coalesce)
        """

    /// The batch append's data-modifying step (`ChatMessageBatchSQL.append`): one row per recipient
    /// device and conversation, for the newest accepted message its account did not send.
    static let batchStep = """
        pushed AS (
            INSERT INTO push_outbox AS o (\(PushOutboxSQL.columns))
            SELECT DISTINCT ON (d.did, d.device_id, a.conversation_id)
                   d.did, d.device_id, encode(a.conversation_id, 'hex')::uuid::text, '\(PushEvent.chatSource)',
                   '\(PushEvent.messageKind)', a.seq, a.epoch, encode(a.operation_id, 'hex')::uuid::text, NULL::int8,
                   (SELECT at FROM clock), (SELECT at FROM clock)
            FROM accepted a
            JOIN chat_leaves l ON l.conversation_id = a.conversation_id AND l.user_did <> a.actor
            JOIN chat_devices cd ON cd.user_did = l.user_did AND cd.device_id = l.device_id AND cd.status = 'active'
            JOIN push_devices d ON d.did = l.user_did AND d.device_id = encode(l.device_id, 'hex')::uuid::text
            ORDER BY d.did, d.device_id, a.conversation_id, a.seq DESC
            \(PushOutboxSQL.coalesce)
            RETURNING o.id
        ),
        """
}

extension ChatTransaction {
    /// Queues the pushes of a stored application message (`entry`) from `sender`, when a push
    /// platform is configured.
    public func pushMessage(_ entry: ChatEntry, sender: String, epoch: UInt64, messageID: ChatUUID) throws {
        guard pushEnabled else { return }
        try connection.execute(ChatPushSQL.enqueue, [entry.conversationID.description, entry.seq, Int64(clamping: epoch),
                                                     messageID.description, entry.conversationID, sender])
    }
}

extension DeliveryStore {
    /// By push id: the PrivateMessage of each claimed chat push whose entry is still stored and whose
    /// message is at most `maxBytes` long (`PushContentSource`).
    public func chatPushContents(_ pushes: [ClaimedPush], maxBytes: Int) throws(DeliveryStoreError) -> [Int64: [UInt8]] {
        let wanted = pushes.filter { $0.event.source == PushEvent.chatSource && $0.event.seq != nil }
        guard !wanted.isEmpty else { return [:] }
        let projection = ChatProjection()
        return try guarded {
            let rows = try database.query("""
                SELECT i.id, e.signed_request FROM unnest($1::int8[], $2::text[], $3::int8[]) AS i(id, conversation, seq)
                JOIN chat_entries e ON e.conversation_id = decode(replace(i.conversation, '-', ''), 'hex') AND e.seq = i.seq
                                   AND e.kind = 'applicationEntry'
                """, [PGArray(wanted.map(\.id)), PGArray(wanted.map(\.event.convoID)), PGArray(wanted.map(\.event.seq))])
            var contents: [Int64: [UInt8]] = [:]
            for row in rows {
                guard let request = try? projection.project(json: try row.bytes("signed_request"), as: .ref("signedApplicationSend")),
                      let bytes = request["body"]?["applicationMessage"]?["bytes"]?.bytes, bytes.count <= maxBytes else { continue }
                contents[try row.int64("id")] = bytes
            }
            return contents
        }
    }
}

extension DeliveryStore {
    /// updatePushToken's change (docs/chat.md, "Push"): the device's push registration in the push
    /// feature's table, as (DID, device UUID text), set to `address` or, with nil, removed with its
    /// pending pushes. The device is `device`, or without one the account's most recently updated
    /// active device; it must be registered (`DeviceNotRegistered`) and active (`DeviceRevoked`), its
    /// row held until commit so that a revocation waits. Returns the device.
    public func setChatPushAddress(did: DID, device: ChatUUID?, address: PushAddress?, maxDevices: Int) throws -> ChatDevice {
        try chat { tx in
            let chosen = try device ?? tx.devices(did: did.rawValue).filter(\.isActive).max { $0.updatedAt < $1.updatedAt }?.deviceID
            guard let chosen, let target = try tx.device(did: did.rawValue, id: chosen, lock: true) else {
                if device == nil, try !tx.devices(did: did.rawValue).isEmpty { throw ChatRefusal(.deviceRevoked, "the account has no active device") }
                throw ChatRefusal(.deviceNotRegistered, "no such device is registered for this account")
            }
            guard target.isActive else { throw ChatRefusal(.deviceRevoked, "the device was revoked") }
            let push = DeliveryTransaction(connection: tx.connection, configuration: configuration)
            if let address {
                try push.registerPushDevice(PushDeviceRegistration(did: did, deviceID: chosen.description, address: address),
                                            maxDevices: maxDevices)
            } else {
                try push.unregisterPushDevice(did: did, deviceID: chosen.description)
            }
            return target
        }
    }
}
