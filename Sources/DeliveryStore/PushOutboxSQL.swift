/// The statements of the push outbox (migrations/0020_push.sql, docs/push.md).
///
/// Writers (a message, commit or Welcome's transaction) insert one row per recipient device and
/// conversation, or replace the pending one's event (coalescing); they already hold the
/// conversation's row lock, so writers of one conversation never meet on its outbox rows. Rows go
/// in (did, device_id, convo_id) order, as `settle` locks them, so a writer and a worker settling
/// the same rows take their locks in one order.
enum PushOutboxSQL {
    /// The upsert's tail: a later event replaces the pending one's, bumps its revision and restarts
    /// its deadline; a row backing off keeps its due time (a device that is refusing is not hammered
    /// because more messages came).
    static let coalesce = """
        ON CONFLICT ON CONSTRAINT push_outbox_one_per_device_convo DO UPDATE SET
            source = EXCLUDED.source, kind = EXCLUDED.kind, seq = EXCLUDED.seq, epoch = EXCLUDED.epoch,
            msg_id = EXCLUDED.msg_id, content_id = EXCLUDED.content_id, revision = o.revision + 1,
            enqueued_at = EXCLUDED.enqueued_at, due_at = greatest(o.due_at, EXCLUDED.due_at)
        """

    static let columns = "did, device_id, convo_id, source, kind, seq, epoch, msg_id, content_id, enqueued_at, due_at"

    /// The batch append's data-modifying step (`MessageBatchSQL`): one row per recipient device and
    /// conversation for the newest accepted message its user did not send.
    static let batchStep = """
        pushed AS (
            INSERT INTO push_outbox AS o (\(columns))
            SELECT DISTINCT ON (d.did, d.device_id, a.convo_id)
                   d.did, d.device_id, a.convo_id, 'mls', 'mlsMessage', a.seq, a.epoch, a.msg_id, NULL::int8,
                   (SELECT at FROM clock), (SELECT at FROM clock)
            FROM accepted a
            JOIN members mb ON mb.convo_id = a.convo_id AND mb.left_at IS NULL AND mb.did <> a.sender
            JOIN push_devices d ON d.did = mb.did
            ORDER BY d.did, d.device_id, a.convo_id, a.seq DESC
            \(coalesce)
            RETURNING o.id
        ),
        """

    /// One event to the devices `recipients` selects (`$1`…`$7` the event, then the form's own).
    static func enqueue(recipients: String) -> String {
        """
        INSERT INTO push_outbox AS o (\(columns))
        SELECT d.did, d.device_id, $1, $2, $3, $4, $5, $6, $7, clock_timestamp(), clock_timestamp()
        FROM push_devices d
        WHERE \(recipients)
        ORDER BY d.did, d.device_id
        \(coalesce)
        """
    }

    /// `$8` the sender, `$9` an epoch the members must have joined before (or NULL).
    static let enqueueToMembers = enqueue(recipients: """
        d.did IN (SELECT mb.did FROM members mb WHERE mb.convo_id = $1 AND mb.left_at IS NULL AND mb.did <> $8
                  AND ($9::int8 IS NULL OR mb.joined_epoch < $9))
        """)

    /// `$8` the users, `$9` the sender.
    static let enqueueToUsers = enqueue(recipients: "d.did = ANY($8::text[]) AND d.did <> $9")

    /// `$8`, `$9` the devices' DIDs and ids.
    static let enqueueToDevices = enqueue(recipients: """
        (d.did, d.device_id) IN (SELECT * FROM unnest($8::text[], $9::text[]))
        """)

    /// Due rows (`$2` at most; a row a worker holds is due when its lease lapses), those of a device
    /// with a live subscription covering the conversation deleted (it has the event over its
    /// socket), the rest leased to `$1` for `$3` seconds. SKIP LOCKED: another node's claim, or a writer replacing a row's event, is passed by,
    /// never waited for. The last row (id NULL) carries how many were skipped as live.
    static let claim = """
        WITH due AS (
            SELECT id FROM push_outbox
            WHERE due_at <= clock_timestamp()
            ORDER BY due_at LIMIT $2
            FOR UPDATE SKIP LOCKED
        ),
        live AS (
            DELETE FROM push_outbox o USING due
            WHERE o.id = due.id AND EXISTS (
                SELECT 1 FROM push_presence p
                WHERE p.did = o.did AND p.device_id = o.device_id AND p.convo_id IN (o.convo_id, '*')
                  AND p.expires_at > clock_timestamp())
            RETURNING o.id
        ),
        claimed AS (
            UPDATE push_outbox o SET lease_owner = $1, due_at = clock_timestamp() + make_interval(secs => $3),
                                     attempts = o.attempts + 1
            FROM due WHERE o.id = due.id AND o.id NOT IN (SELECT id FROM live)
            RETURNING o.id, o.did, o.device_id, o.convo_id, o.source, o.kind, o.seq, o.epoch, o.msg_id, o.content_id,
                      o.revision, o.attempts, o.enqueued_at
        )
        SELECT c.*, d.platform, d.token, d.environment, d.p256dh, d.auth_secret, NULL::int8 AS live
        FROM claimed c LEFT JOIN push_devices d ON d.did = c.did AND d.device_id = c.device_id
        UNION ALL
        SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
               NULL, NULL, NULL, NULL, NULL, (SELECT count(*) FROM live)
        """

    /// Settles claimed rows of `$5` (the node): delivered or dropped rows go unless a newer event
    /// replaced theirs (that one is then due at once), retried rows are due after their delay.
    /// Rows another node claimed since (this one's lease lapsed) are left alone. Locks in the
    /// writers' order.
    static let settle = """
        WITH input AS (
            SELECT * FROM unnest($1::int8[], $2::int8[], $3::text[], $4::float8[]) AS i(id, revision, verdict, delay)
        ),
        locked AS (
            SELECT o.id, o.revision = i.revision AS current, i.verdict, i.delay
            FROM push_outbox o JOIN input i ON i.id = o.id
            WHERE o.lease_owner = $5
            ORDER BY o.did, o.device_id, o.convo_id
            FOR UPDATE OF o
        ),
        removed AS (
            DELETE FROM push_outbox o USING locked l
            WHERE o.id = l.id AND l.current AND l.verdict <> 'retry'
            RETURNING o.id
        ),
        released AS (
            UPDATE push_outbox o SET lease_owner = NULL,
                due_at = CASE WHEN l.current THEN clock_timestamp() + make_interval(secs => l.delay) ELSE clock_timestamp() END,
                attempts = CASE WHEN l.current THEN o.attempts ELSE 0 END
            FROM locked l
            WHERE o.id = l.id AND NOT (l.current AND l.verdict <> 'retry')
            RETURNING o.id
        )
        SELECT (SELECT count(*) FROM removed) AS removed, (SELECT count(*) FROM released) AS released
        """
}
