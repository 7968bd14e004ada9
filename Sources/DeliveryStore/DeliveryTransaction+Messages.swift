import Basics
import Foundation
import Store

extension DeliveryTransaction {
    /// Stores an application message with the conversation's next seq.
    ///
    /// Under the conversation's row lock: the sender must be a current member (`notMember`); a
    /// msgID already stored by the same sender returns the first result with `duplicate` set
    /// (`messageIDConflict` if another sender used it), whatever the epoch is now; otherwise the
    /// conversation must not be frozen (`groupFrozen`) and the epoch must be the current one (`epochMismatch`), or the previous one when the
    /// configuration allows it, and the message must fit the sender's quota (`messageQuotaExceeded`),
    /// which it is charged. The message is its own messageEvent, announced on the event channel.
    public func appendMessage(_ message: NewMessage) throws(DeliveryStoreError) -> AppendedMessage {
        try guarded {
            guard !message.msgID.isEmpty else { throw DeliveryStoreError.invalidArgument("empty msgID") }
            let (current, frozen) = try lockConvoState(message.convoID)
            guard try isMember(convoID: message.convoID, did: message.senderDID) else {
                throw DeliveryStoreError.notMember
            }
            let existing = try connection.query("""
                SELECT seq, created_at, epoch, sender_did FROM messages WHERE convo_id = $1 AND msg_id = $2
                """, [message.convoID, message.msgID])
            if let first = existing.first {
                guard try first.string("sender_did") == message.senderDID.rawValue else { throw DeliveryStoreError.messageIDConflict }
                return AppendedMessage(seq: try first.int64("seq"), receivedAt: try first.date("created_at"),
                                       epoch: try first.int64("epoch"), duplicate: true)
            }
            // RFC 9420 §12.4.2: after a ReInit commit the group is not used to send messages.
            guard !frozen else { throw DeliveryStoreError.groupFrozen }
            let previousAllowed = configuration.acceptsPreviousEpochMessages && message.epoch == current - 1
            guard message.epoch == current || previousAllowed else {
                throw DeliveryStoreError.epochMismatch(current: current)
            }
            let (ciphertext, hash, size): ([UInt8]?, [UInt8]?, Int) = switch message.content {
            case .ciphertext(let bytes): (bytes, nil, bytes.count)
            case .external(let sha256, let size): (nil, sha256, size)
            }
            guard hash.map({ $0.count == 32 }) ?? true else {
                throw DeliveryStoreError.invalidArgument("a SHA-256 hash is 32 bytes")
            }
            guard size >= 0, size <= Int(Int32.max), (message.paddedSize ?? 0) >= 0,
                  (message.paddedSize ?? 0) <= Int(Int32.max) else {
                throw DeliveryStoreError.invalidArgument("size out of range")
            }
            try chargeMessageQuota(sender: message.senderDID.rawValue, storedBytes: ciphertext?.count ?? 0)
            let (seq, eventSeq, receivedAt) = try nextSeq(message.convoID, touch: true)
            try connection.execute("""
                INSERT INTO messages (convo_id, seq, msg_id, epoch, message_type, sender_did, ciphertext,
                                      content_hash, size, padded_size, created_at, event_seq)
                VALUES ($1, $2, $3, $4, 'app', $5, $6, $7, $8, $9, $10, $11)
                """, [message.convoID, seq, message.msgID, message.epoch, message.senderDID, ciphertext, hash,
                      Int32(size), message.paddedSize.map { Int32($0) }, receivedAt, eventSeq])
            if configuration.pushEnabled {
                try enqueuePushes(PushEvent(kind: PushEvent.messageKind, convoID: message.convoID, seq: seq, epoch: message.epoch,
                                            messageID: message.msgID),
                                  to: .members(except: message.senderDID))
            }
            try announceEvents(message.convoID, through: eventSeq)
            return AppendedMessage(seq: seq, receivedAt: receivedAt, epoch: message.epoch, duplicate: false)
        }
    }

    /// Messages with seq greater than `query.sinceSeq`, in seq order, filtered by epoch range and
    /// kind; `convoNotFound` for an unknown conversation. Membership is the caller's check.
    public func messages(convoID: String, _ query: MessageQuery = MessageQuery()) throws(DeliveryStoreError) -> MessagePage {
        try guarded {
            guard query.limit >= 1, query.limit <= 1000 else { throw DeliveryStoreError.invalidArgument("limit 1…1000") }
            let convo = try connection.query("SELECT last_seq FROM convos WHERE convo_id = $1", [convoID])
            guard let lastSeq = try convo.first?.int64("last_seq") else { throw DeliveryStoreError.convoNotFound }
            let rows = try connection.query("""
                SELECT \(MessageRow.columns) FROM messages
                WHERE convo_id = $1 AND seq > $2
                  AND ($3::bigint IS NULL OR epoch >= $3) AND ($4::bigint IS NULL OR epoch <= $4)
                  AND ($5::text IS NULL OR message_type = $5)
                ORDER BY seq LIMIT $6
                """, [convoID, query.sinceSeq, query.fromEpoch, query.toEpoch, query.kind?.rawValue, Int64(query.limit)])
            return MessagePage(messages: try rows.map(MessageRow.init(row:)), lastSeq: lastSeq)
        }
    }

    /// Stores a commit made in `epoch` as that epoch's commit row and as a message with the next
    /// seq and event seq (the conversation's row must be locked; the caller announces it with the
    /// events it appends after). The commit row is written first, so a second commit for the epoch
    /// (`commitConflict`) or a taken msgID (`messageIDConflict`) writes nothing.
    func appendCommitMessage(convoID: String, msgID: String, epoch: Int64, senderDID: String,
                             commit: [UInt8]) throws -> Int64 {
        let taken = try connection.query("SELECT 1 FROM messages WHERE convo_id = $1 AND msg_id = $2", [convoID, msgID])
        guard taken.isEmpty else { throw DeliveryStoreError.messageIDConflict }
        // The unique (convo_id, epoch) key is the last line of defence against a fork.
        let inserted = try connection.query("""
            INSERT INTO commits (convo_id, epoch, seq, sender_did, commit_data, created_at)
            SELECT $1, $2, last_seq + 1, $3, $4, clock_timestamp() FROM convos WHERE convo_id = $1
            ON CONFLICT ON CONSTRAINT commits_one_per_epoch DO NOTHING
            RETURNING seq
            """, [convoID, epoch, senderDID, commit])
        guard let expected = try inserted.first?.int64("seq") else {
            throw DeliveryStoreError.commitConflict(current: epoch)
        }
        let (seq, eventSeq, at) = try nextSeq(convoID, touch: false)
        guard seq == expected else { throw StoreError.decoding("commit seq \(expected) but message seq \(seq)") }
        try connection.execute("""
            INSERT INTO messages (convo_id, seq, msg_id, epoch, message_type, sender_did, ciphertext, size, created_at,
                                  event_seq)
            VALUES ($1, $2, $3, $4, 'commit', $5, $6, $7, $8, $9)
            """, [convoID, seq, msgID, epoch, senderDID, commit, Int32(clamping: commit.count), at, eventSeq])
        return seq
    }
}

extension MessageRow {
    static let columns = """
        convo_id, seq, msg_id, epoch, message_type, sender_did, ciphertext, content_hash, size, padded_size, created_at
        """

    init(row: PGRow) throws {
        guard let kind = MessageKind(rawValue: try row.string("message_type")) else {
            throw StoreError.decoding("unknown message_type")
        }
        self.init(convoID: try row.string("convo_id"), seq: try row.int64("seq"), msgID: try row.string("msg_id"),
                  epoch: try row.int64("epoch"), kind: kind, senderDID: try row.string("sender_did"),
                  ciphertext: try row.optionalBytes("ciphertext"), contentHash: try row.optionalBytes("content_hash"),
                  size: try row.int("size"), paddedSize: try row.optionalInt("padded_size"),
                  createdAt: try row.date("created_at"))
    }
}
