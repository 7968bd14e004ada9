import Store

/// The statements of a sendMessage batch (`DeliveryStore.appendMessages`), in pipeline order:
/// `lockConvos`, (for `Form.locked`: `MessageQuotaSQL.ensureUsage` and `lockUsage`), the append
/// itself, COMMIT, then `announce`.
///
/// The append comes in three forms (`Form`) built from the same parts, each the fallback of the one
/// before for what it assumed:
/// - `fresh`, the common one, assumes no message repeats a stored msgId and no token was used
///   before: no probe per message for either, plain inserts whose unique indexes refuse a repeat
///   (`repeatConstraints`: the whole batch rolls back and runs `checked`);
/// - `checked` probes both, and answers a repeated msgId with its first result and a used token
///   with `replayed`, per message;
/// - both read the senders' `message_usage` rows without their locks and charge them, each under
///   its row lock, at the statement's very end, only if the charge still fits;
///   `message_quota_settle` (migration 0013) aborts the batch with `quotaMovedState` unless every
///   sender was charged. Locking the rows first would make every batch of a sender wait for the
///   commit of the batch before it, whatever its lane: one fsync at a time for a sender who writes
///   to many conversations. `locked` runs after such an abort, with the rows locked before its
///   snapshot, and answers each message exactly, refusing the ones over the quota alone.
enum MessageBatchSQL {
    /// Row locks in a fixed order: two batches sharing conversations never wait on each other in
    /// a cycle. FOR NO KEY UPDATE excludes other writers (commits lock FOR UPDATE) but not the
    /// key-share locks of foreign-key checks.
    ///
    /// It also fixes, for the rest of the transaction, the plan of the append: every table lookup
    /// there is an index probe by key, and must stay one. A plan cached while a table looked small
    /// (statistics lag a fast-growing messages table by up to a minute) would otherwise scan the
    /// whole table. With the plan thus fixed, the generic plan is used from the first run: no
    /// planning per batch. JIT is off for the same span: a plan that ever held a disabled scan
    /// would cost over `jit_above_cost` and compile on every run (0.6 s a batch, measured).
    static let lockConvos = """
        SELECT convo_id FROM convos,
            (SELECT set_config('enable_seqscan', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true),
                    set_config('jit', 'off', true)) AS plan
        WHERE convo_id = ANY($1::text[]) ORDER BY convo_id FOR NO KEY UPDATE OF convos
        """

    /// The news of a committed batch on the event channel, `<convo_id> <last_event_seq>` for each
    /// of its conversations, read after the commit (so never behind it). Run after COMMIT in the
    /// batch's round trip (`pipelinedTransaction(_:afterCommit:)`): a NOTIFY inside the batch would
    /// make concurrent batches commit one at a time.
    static let announce = """
        SELECT count(pg_notify($1, convo_id || ' ' || last_event_seq)) AS n FROM convos WHERE convo_id = ANY($2::text[])
        """

    /// SQLSTATE of `message_quota_settle`'s refusal (migration 0013).
    static let quotaMovedState = "CB001"
    /// The unique indexes that refuse a `fresh` batch's repeated msgId or used token.
    static let repeatConstraints: Set<String> = ["messages_msg_id_unique", "auth_replay_pkey"]

    enum Form {
        case fresh, checked, locked

        /// The form to run after this one failed with `error`, if any.
        func fallback(after error: StoreError) -> Form? {
            switch (self, error) {
            case (.fresh, .uniqueViolation(let constraint?)) where repeatConstraints.contains(constraint): .checked
            case (.fresh, .queryFailed(quotaMovedState, _)), (.checked, .queryFailed(quotaMovedState, _)): .locked
            default: nil
            }
        }

        /// The form's statement; `pushing`: it also queues the accepted messages' pushes (docs/push.md).
        func sql(pushing: Bool) -> String {
            switch (self, pushing) {
            case (.fresh, false): MessageBatchSQL.appendFresh
            case (.checked, false): MessageBatchSQL.appendChecked
            case (.locked, false): MessageBatchSQL.appendLocked
            case (.fresh, true): MessageBatchSQL.appendFreshPushing
            case (.checked, true): MessageBatchSQL.appendCheckedPushing
            case (.locked, true): MessageBatchSQL.appendLockedPushing
            }
        }
    }

    private static let appendFresh = append(probingRepeats: false, lockedSenders: false, pushing: false)
    private static let appendChecked = append(probingRepeats: true, lockedSenders: false, pushing: false)
    private static let appendLocked = append(probingRepeats: true, lockedSenders: true, pushing: false)
    private static let appendFreshPushing = append(probingRepeats: false, lockedSenders: false, pushing: true)
    private static let appendCheckedPushing = append(probingRepeats: true, lockedSenders: false, pushing: true)
    private static let appendLockedPushing = append(probingRepeats: true, lockedSenders: true, pushing: true)

    /// One statement for the whole batch, in `appendMessage`'s order of checks: token replay,
    /// conversation, membership, msgId (a repeat by the same sender returns the first result),
    /// frozen (a ReInit commit), epoch, the sender's quota. Accepted messages take dense seqs and
    /// event seqs per conversation in input order; one counter update per conversation.
    /// Data-modifying CTEs see the snapshot, not each other's rows, so every check reads tables as
    /// they were before this statement (and after the locks) and only `replay`'s RETURNING
    /// carries a result across. `charged` runs last (after `written`), so a sender's row stays
    /// locked only from there to the commit.
    ///
    /// With `pushing`, `pushed` (`PushOutboxSQL.batchStep`) queues a push for each recipient
    /// device of the accepted messages, in the same statement and so the same transaction.
    ///
    /// Parameters: `$1`…`$11` one array entry per message (convo, msgId, epoch, sender,
    /// ciphertext, content hash, size, padded size, token iss, jti, replay record's end), `$12`
    /// whether the previous epoch is accepted, `$13` the quota.
    private static func append(probingRepeats: Bool, lockedSenders: Bool, pushing: Bool) -> String {
        """
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
            \(probingRepeats ? """
            ON CONFLICT (iss, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at
                WHERE r.expires_at < (SELECT at FROM clock)
            """ : "")
            RETURNING iss, jti
        ),
        checked AS (
            SELECT i.*, c.epoch AS current_epoch, c.last_seq, c.last_event_seq, c.frozen,
                   \(probingRepeats ? "i.iss IS NULL OR r.jti IS NOT NULL" : "true") AS fresh, m.member IS NOT NULL AS member,
                   e.seq AS first_seq, e.created_at AS first_at, e.epoch AS first_epoch, e.sender_did AS first_sender,
                   \(lockedSenders ? "coalesce(u.bytes, 0)" : "NULL::int8") AS used,
                   message_quota_charge(CASE WHEN i.ciphertext IS NULL THEN 0 ELSE i.size END) AS charge
            FROM input i
            \(probingRepeats ? "LEFT JOIN replay r ON r.iss = i.iss AND r.jti = i.jti" : "")
            -- One index probe per message (LIMIT keeps each a parameterised subquery, and
            -- lockConvos's settings an index scan), never a hash of a whole table.
            LEFT JOIN LATERAL (SELECT epoch, last_seq, last_event_seq, frozen_epoch IS NOT NULL AS frozen FROM convos
                               WHERE convo_id = i.convo_id LIMIT 1) c ON true
            LEFT JOIN LATERAL (SELECT true AS member FROM members
                               WHERE did = i.sender AND convo_id = i.convo_id AND left_at IS NULL LIMIT 1) m ON true
            LEFT JOIN LATERAL (SELECT seq, created_at, epoch, sender_did FROM messages
                               WHERE \(probingRepeats ? "" : "false AND ")convo_id = i.convo_id AND msg_id = i.msg_id LIMIT 1) e ON true
            \(lockedSenders ? "LEFT JOIN LATERAL (SELECT bytes FROM message_usage WHERE did = i.sender LIMIT 1) u ON true" : "")
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
        \(lockedSenders ? quotaWalk : "outcome AS (SELECT *, checked_status AS status, NULL::int8 AS used_before FROM verdict),")
        accepted AS (
            SELECT o.*, o.last_seq + row_number() OVER w AS seq, o.last_event_seq + row_number() OVER w AS event_seq
            FROM outcome o WHERE status = 'stored'
            WINDOW w AS (PARTITION BY convo_id ORDER BY ord)
        ),
        -- Each message is its own messageEvent (migration 0015).
        stored AS (
            INSERT INTO messages (convo_id, seq, msg_id, epoch, message_type, sender_did, ciphertext, content_hash,
                                  size, padded_size, created_at, event_seq)
            SELECT convo_id, seq, msg_id, epoch, 'app', sender, ciphertext, content_hash, size, padded_size,
                   (SELECT at FROM clock), event_seq
            FROM accepted
            RETURNING seq
        ),
        \(pushing ? PushOutboxSQL.batchStep : "")
        counters AS (
            UPDATE convos c SET last_seq = a.last_seq, last_event_seq = a.last_event_seq,
                                last_message_at = (SELECT at FROM clock)
            FROM (SELECT convo_id, max(seq) AS last_seq, max(event_seq) AS last_event_seq
                  FROM accepted GROUP BY convo_id) a
            WHERE c.convo_id = a.convo_id
            RETURNING c.convo_id
        ),
        written AS (SELECT (SELECT count(*) FROM stored) + (SELECT count(*) FROM counters) AS n),
        -- In DID order, as every writer of these rows locks them. A total over the quota (possible
        -- only unlocked) charges nothing and so fails the settlement.
        charged AS (
            INSERT INTO message_usage AS u (did, bytes)
            SELECT sender, sum(charge) FROM accepted WHERE (SELECT n FROM written) >= 0
            GROUP BY sender HAVING sum(charge) <= $13 ORDER BY sender
            ON CONFLICT (did) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes WHERE u.bytes + EXCLUDED.bytes <= $13
            RETURNING did
        ),
        settled AS (
            SELECT message_quota_settle((SELECT count(DISTINCT sender) FROM accepted), (SELECT count(*) FROM charged)) AS ok
        )
        SELECT o.ord, o.status, coalesce(a.seq, o.first_seq) AS seq, o.used_before,
               CASE WHEN a.seq IS NULL THEN o.first_at ELSE (SELECT at FROM clock) END AS at,
               CASE WHEN a.seq IS NULL THEN o.first_epoch ELSE o.epoch END AS epoch,
               o.current_epoch, (SELECT ok FROM settled) AS settled
        FROM outcome o LEFT JOIN accepted a ON a.ord = o.ord
        ORDER BY o.ord
        """
    }

    /// With the senders' rows locked (`used` is final): the quota walks each sender's otherwise
    /// accepted messages in input order (recursive), as one `appendMessage` after another would: a
    /// message that does not fit is refused alone and charges nothing, so a later, smaller one may
    /// still fit.
    private static let quotaWalk = """
        candidate AS (
            SELECT ord, sender, used, charge, row_number() OVER (PARTITION BY sender ORDER BY ord) AS k
            FROM verdict WHERE checked_status = 'stored'
        ),
        quota AS (
            SELECT sender, k, ord, used + charge <= $13 AS fits,
                   CASE WHEN used + charge <= $13 THEN used + charge ELSE used END AS total
            FROM candidate WHERE k = 1
            UNION ALL
            SELECT c.sender, c.k, c.ord, q.total + c.charge <= $13,
                   CASE WHEN q.total + c.charge <= $13 THEN q.total + c.charge ELSE q.total END
            FROM quota q JOIN candidate c ON c.sender = q.sender AND c.k = q.k + 1
        ),
        outcome AS (
            SELECT v.*, CASE WHEN v.checked_status = 'stored' AND NOT q.fits THEN 'quotaExceeded'
                             ELSE v.checked_status END AS status,
                   q.total - CASE WHEN q.fits THEN v.charge ELSE 0 END AS used_before
            FROM verdict v LEFT JOIN quota q ON q.ord = v.ord
        ),
        """
}
