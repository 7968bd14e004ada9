import Foundation
import Store

/// An application message for `appendMessages`, with the token that authorised it.
public struct BatchedMessage: Sendable, Equatable {
    public var message: NewMessage
    /// Remembered in the batch's transaction; nil when the caller recorded the token itself.
    public var replay: ReplayRecord?

    public init(_ message: NewMessage, replay: ReplayRecord? = nil) {
        self.message = message
        self.replay = replay
    }
}

/// What `appendMessages` did with one message.
public struct BatchedAppend: Sendable, Equatable {
    public var result: Result<AppendedMessage, DeliveryStoreError>
    /// Whether the message's replay record is committed (or was found, for `tokenReplayed`): the
    /// token is used up whatever the result. False when its transaction rolled back.
    public var replayRecorded: Bool
}

extension DeliveryStore {
    /// Appends many messages, for one conversation or several, in one transaction that costs one
    /// round trip and one WAL flush: group commit for sendMessage.
    ///
    /// Each message gets exactly the answer `appendMessage` would give it (the same checks, in
    /// the same order, with the token's replay check first), and refusals are per message: a bad
    /// one does not hold back the rest. Seqs are dense per conversation, in the order of
    /// `messages`. Two messages with the same (convo, msgId) or the same token must not share a
    /// batch (`MessageBatcher` keeps them apart); such a batch is refused with `invalidArgument`.
    ///
    /// The transaction locks the conversations' rows (sorted, so batches never deadlock each
    /// other) in one statement and checks and writes in the next, whose snapshot is taken after
    /// the locks: membership and epoch are read as the last commit left them. If the batch as a
    /// whole fails for a reason no message check foresaw, each message is retried in a
    /// transaction of its own, so the failure stays with the messages it concerns.
    public func appendMessages(_ batch: [BatchedMessage]) -> [BatchedAppend] {
        var outcomes = [BatchedAppend?](repeating: nil, count: batch.count)
        var valid: [Int] = []
        for (index, item) in batch.enumerated() {
            if let problem = Self.argumentProblem(item.message) {
                outcomes[index] = BatchedAppend(result: .failure(.invalidArgument(problem)), replayRecorded: false)
            } else {
                valid.append(index)
            }
        }
        guard !valid.isEmpty else { return outcomes.map { $0! } }
        let items = valid.map { batch[$0] }
        let stored: [BatchedAppend]
        do {
            stored = try appendValidated(items)
        } catch .database(let error) where error.meansDatabaseUnreachable {
            // Alone, each message would fail the same way.
            stored = items.map { _ in BatchedAppend(result: .failure(.database(error)), replayRecorded: false) }
        } catch {
            stored = items.map(appendAlone)
        }
        for (index, outcome) in zip(valid, stored) { outcomes[index] = outcome }
        return outcomes.map { $0! }
    }

    /// One message in its own transaction: the batch's fallback.
    func appendAlone(_ item: BatchedMessage) -> BatchedAppend {
        do {
            let appended = try run { transaction throws(DeliveryStoreError) in
                if let replay = item.replay { try transaction.recordReplay(replay) }
                return try transaction.appendMessage(item.message)
            }
            return BatchedAppend(result: .success(appended), replayRecorded: item.replay != nil)
        } catch {
            return BatchedAppend(result: .failure(error), replayRecorded: false)
        }
    }

    /// The argument checks `appendMessage` makes before touching the database.
    static func argumentProblem(_ message: NewMessage) -> String? {
        if message.msgID.isEmpty { return "empty msgID" }
        let size: Int
        switch message.content {
        case .ciphertext(let bytes): size = bytes.count
        case .external(let sha256, let declared):
            guard sha256.count == 32 else { return "a SHA-256 hash is 32 bytes" }
            size = declared
        }
        let padded = message.paddedSize ?? 0
        guard size >= 0, size <= Int(Int32.max), padded >= 0, padded <= Int(Int32.max) else { return "size out of range" }
        return nil
    }

    private func appendValidated(_ items: [BatchedMessage]) throws(DeliveryStoreError) -> [BatchedAppend] {
        let messages = items.map(\.message)
        guard Set(messages.map { [$0.convoID, $0.msgID] }).count == items.count,
              Set(items.compactMap { $0.replay?.key }).count == items.compactMap(\.replay).count else {
            throw .invalidArgument("a batch holds a msgId or a token twice")
        }
        let convoIDs = Array(Set(messages.map(\.convoID))).sorted()
        let parameters: [(any PGBindable)?] = [
            PGArray(messages.map(\.convoID)), PGArray(messages.map(\.msgID)), PGArray(messages.map(\.epoch)),
            PGArray(messages.map(\.senderDID.rawValue)),
            PGArray(messages.map { message -> [UInt8]? in
                if case .ciphertext(let bytes) = message.content { return bytes } else { return nil }
            }),
            PGArray(messages.map { message -> [UInt8]? in
                if case .external(let sha256, _) = message.content { return sha256 } else { return nil }
            }),
            PGArray(messages.map { message -> Int32 in
                switch message.content {
                case .ciphertext(let bytes): Int32(bytes.count)
                case .external(_, let size): Int32(size)
                }
            }),
            PGArray(messages.map { $0.paddedSize.map { Int32($0) } }),
            PGArray(items.map { $0.replay?.iss }), PGArray(items.map { $0.replay?.jti }),
            PGArray(items.map { $0.replay?.until }),
            configuration.acceptsPreviousEpochMessages, configuration.eventChannel, configuration.messageQuotaBytes,
        ]
        let senders = PGArray(Array(Set(messages.map(\.senderDID.rawValue))).sorted())
        let rows = try guarded {
            try database.pipelinedTransaction([
                PGStatement(Self.plannerSettingsSQL),
                PGStatement(Self.lockConvosSQL, [PGArray(convoIDs)]),
                PGStatement(MessageQuotaSQL.ensureUsage, [senders]),
                PGStatement(MessageQuotaSQL.lockUsage, [senders]),
                PGStatement(Self.appendBatchSQL, parameters),
            ])[4]
        }
        guard rows.count == items.count else {
            throw .database(.decoding("the batch answered \(rows.count) rows for \(items.count) messages"))
        }
        return try guarded {
            try rows.map { row in
                let outcome = try BatchRowOutcome(row: row, quota: configuration.messageQuotaBytes)
                return BatchedAppend(result: outcome.result, replayRecorded: true)
            }
        }
    }

    /// For the rest of the transaction: every table lookup of these statements is an index probe
    /// by key, and must stay one. A plan cached while a table looked small (statistics lag a
    /// fast-growing messages table by up to a minute) would otherwise scan the whole table. With
    /// the plan thus fixed, the generic plan is used from the first run: no planning per batch.
    static let plannerSettingsSQL = """
        SELECT set_config('enable_seqscan', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true)
        """

    /// Row locks in a fixed order: two batches sharing conversations never wait on each other in
    /// a cycle. FOR NO KEY UPDATE excludes other writers (commits lock FOR UPDATE) but not the
    /// key-share locks of foreign-key checks.
    static let lockConvosSQL = """
        SELECT convo_id FROM convos WHERE convo_id = ANY($1::text[]) ORDER BY convo_id FOR NO KEY UPDATE
        """

    /// One statement for the whole batch, in `appendMessage`'s order of checks: token replay,
    /// conversation, membership, msgId (a repeat by the same sender returns the first result),
    /// frozen (a ReInit commit), epoch, the sender's quota. Accepted messages take dense seqs and event seqs per conversation in input order;
    /// one counter update and one NOTIFY per conversation. Data-modifying CTEs see the snapshot,
    /// not each other's rows, so every check reads tables as they were before this statement
    /// (and after the locks) and only `replay`'s RETURNING carries a result across.
    ///
    /// The quota walks each sender's otherwise accepted messages in input order (`quota`, recursive),
    /// as one `appendMessage` after another would: a message that does not fit is refused alone and
    /// charges nothing, so a later, smaller one may still fit. The senders' `message_usage` rows are
    /// locked before this statement, so its snapshot holds their final values.
    static let appendBatchSQL = """
        WITH RECURSIVE input AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::bytea[], $6::bytea[],
                                 $7::int4[], $8::int4[], $9::text[], $10::text[], $11::timestamptz[])
                WITH ORDINALITY AS i(convo_id, msg_id, epoch, sender, ciphertext, content_hash, size, padded_size,
                                     iss, jti, until, ord)
        ),
        clock AS (SELECT clock_timestamp() AS at),
        replay AS (
            INSERT INTO auth_replay AS r (iss, jti, expires_at)
            SELECT iss, jti, until FROM input WHERE iss IS NOT NULL
            ON CONFLICT (iss, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at
                WHERE r.expires_at < (SELECT at FROM clock)
            RETURNING iss, jti
        ),
        checked AS (
            SELECT i.*, c.epoch AS current_epoch, c.last_seq, c.last_event_seq, c.frozen,
                   i.iss IS NULL OR r.jti IS NOT NULL AS fresh, m.member IS NOT NULL AS member,
                   e.seq AS first_seq, e.created_at AS first_at, e.epoch AS first_epoch, e.sender_did AS first_sender,
                   coalesce(u.bytes, 0) AS used,
                   message_quota_charge(CASE WHEN i.ciphertext IS NULL THEN 0 ELSE i.size END) AS charge
            FROM input i
            LEFT JOIN replay r ON r.iss = i.iss AND r.jti = i.jti
            -- One index probe per message (LIMIT keeps each a parameterised subquery, and
            -- plannerSettingsSQL an index scan), never a hash of a whole table.
            LEFT JOIN LATERAL (SELECT epoch, last_seq, last_event_seq, frozen_epoch IS NOT NULL AS frozen FROM convos
                               WHERE convo_id = i.convo_id LIMIT 1) c ON true
            LEFT JOIN LATERAL (SELECT true AS member FROM members
                               WHERE did = i.sender AND convo_id = i.convo_id AND left_at IS NULL LIMIT 1) m ON true
            LEFT JOIN LATERAL (SELECT seq, created_at, epoch, sender_did FROM messages
                               WHERE convo_id = i.convo_id AND msg_id = i.msg_id LIMIT 1) e ON true
            LEFT JOIN LATERAL (SELECT bytes FROM message_usage WHERE did = i.sender LIMIT 1) u ON true
        ),
        verdict AS (
            SELECT *, CASE
                WHEN NOT fresh THEN 'replayed'
                WHEN current_epoch IS NULL THEN 'convoNotFound'
                WHEN NOT member THEN 'notMember'
                WHEN first_seq IS NOT NULL AND first_sender <> sender THEN 'messageIdConflict'
                WHEN first_seq IS NOT NULL THEN 'duplicate'
                -- RFC 9420 §12.4.2: after a ReInit commit the group is not used to send messages.
                WHEN frozen THEN 'groupFrozen'
                WHEN epoch = current_epoch OR ($12 AND epoch = current_epoch - 1) THEN 'stored'
                ELSE 'epochMismatch' END AS checked_status
            FROM checked
        ),
        candidate AS (
            SELECT ord, sender, used, charge, row_number() OVER (PARTITION BY sender ORDER BY ord) AS k
            FROM verdict WHERE checked_status = 'stored'
        ),
        quota AS (
            SELECT sender, k, ord, used + charge <= $14 AS fits,
                   CASE WHEN used + charge <= $14 THEN used + charge ELSE used END AS total
            FROM candidate WHERE k = 1
            UNION ALL
            SELECT c.sender, c.k, c.ord, q.total + c.charge <= $14,
                   CASE WHEN q.total + c.charge <= $14 THEN q.total + c.charge ELSE q.total END
            FROM quota q JOIN candidate c ON c.sender = q.sender AND c.k = q.k + 1
        ),
        outcome AS (
            SELECT v.*, CASE WHEN v.checked_status = 'stored' AND NOT q.fits THEN 'quotaExceeded'
                             ELSE v.checked_status END AS status,
                   q.total - CASE WHEN q.fits THEN v.charge ELSE 0 END AS used_before
            FROM verdict v LEFT JOIN quota q ON q.ord = v.ord
        ),
        accepted AS (
            SELECT o.*, o.last_seq + row_number() OVER w AS seq, o.last_event_seq + row_number() OVER w AS event_seq
            FROM outcome o WHERE status = 'stored'
            WINDOW w AS (PARTITION BY convo_id ORDER BY ord)
        ),
        stored AS (
            INSERT INTO messages (convo_id, seq, msg_id, epoch, message_type, sender_did, ciphertext, content_hash,
                                  size, padded_size, created_at)
            SELECT convo_id, seq, msg_id, epoch, 'app', sender, ciphertext, content_hash, size, padded_size,
                   (SELECT at FROM clock)
            FROM accepted
        ),
        logged AS (
            INSERT INTO events (convo_id, event_seq, type, payload)
            SELECT convo_id, event_seq, 'messageEvent',
                   jsonb_build_object('seq', seq, 'msgId', msg_id, 'epoch', epoch, 'sender', sender, 'messageType', 'app')
            FROM accepted
        ),
        counters AS (
            UPDATE convos c SET last_seq = a.last_seq, last_event_seq = a.last_event_seq,
                                last_message_at = (SELECT at FROM clock)
            FROM (SELECT convo_id, max(seq) AS last_seq, max(event_seq) AS last_event_seq
                  FROM accepted GROUP BY convo_id) a
            WHERE c.convo_id = a.convo_id
            RETURNING c.convo_id, c.last_event_seq
        ),
        charged AS (
            UPDATE message_usage u SET bytes = u.bytes + a.bytes
            FROM (SELECT sender, sum(charge) AS bytes FROM accepted GROUP BY sender) a
            WHERE u.did = a.sender
        ),
        notified AS (SELECT count(pg_notify($13, convo_id || ' ' || last_event_seq)) AS n FROM counters)
        SELECT o.ord, o.status, coalesce(a.seq, o.first_seq) AS seq, o.used_before,
               CASE WHEN a.seq IS NULL THEN o.first_at ELSE (SELECT at FROM clock) END AS at,
               CASE WHEN a.seq IS NULL THEN o.first_epoch ELSE o.epoch END AS epoch,
               o.current_epoch, (SELECT n FROM notified) AS notified
        FROM outcome o LEFT JOIN accepted a ON a.ord = o.ord
        ORDER BY o.ord
        """
}

extension StoreError {
    fileprivate var meansDatabaseUnreachable: Bool {
        switch self {
        case .unavailable, .poolTimeout: true
        default: false
        }
    }
}

/// One row of `appendBatchSQL`'s answer.
private struct BatchRowOutcome {
    let result: Result<AppendedMessage, DeliveryStoreError>

    init(row: PGRow, quota: Int64) throws {
        switch try row.string("status") {
        case "stored", "duplicate":
            result = .success(AppendedMessage(seq: try row.int64("seq"), receivedAt: try row.date("at"),
                                              epoch: try row.int64("epoch"), duplicate: try row.string("status") == "duplicate"))
        case "replayed": result = .failure(.tokenReplayed)
        case "convoNotFound": result = .failure(.convoNotFound)
        case "notMember": result = .failure(.notMember)
        case "messageIdConflict": result = .failure(.messageIDConflict)
        case "groupFrozen": result = .failure(.groupFrozen)
        case "epochMismatch": result = .failure(.epochMismatch(current: try row.int64("current_epoch")))
        case "quotaExceeded": result = .failure(.messageQuotaExceeded(used: try row.int64("used_before"), quota: quota))
        case let status: throw StoreError.decoding("unknown batch status \(status)")
        }
    }
}
