import ChatProtocol
import Store

/// The statements of a chat sendMessage batch (`DeliveryStore.appendChatMessages`), in pipeline
/// order: `lock`, `append`, COMMIT, then `announce`.
enum ChatMessageBatchSQL {
    /// The conversations' rows in a fixed order (FOR NO KEY UPDATE: transitions lock them FOR
    /// UPDATE and wait, as batches wait for them), with the append's plan fixed as in the v1 batch
    /// (`MessageBatchSQL.lockConvos`): index probes only, generic plan, no JIT.
    static let lock = """
        SELECT conversation_id FROM chat_conversations,
            (SELECT set_config('enable_seqscan', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true),
                    set_config('jit', 'off', true)) AS plan
        WHERE conversation_id = ANY($1::bytea[]) ORDER BY conversation_id FOR NO KEY UPDATE OF chat_conversations
        """

    /// The event stream's news, after the commit (`ChatEventHub`).
    static let announce = "SELECT pg_notify('chat_events', position::text) FROM chat_event_head WHERE id = 1"

    /// One statement for the whole batch (see `appendChatMessages`). Parameters, one array entry per
    /// message: `$1` conversation, `$2` actor, `$3` device, `$4` keyId, `$5` authGeneration, `$6`
    /// messageId, `$7` request digest, `$8` signature, `$9`–`$14` the prior coordinates (generation,
    /// state version, group id, epoch, GroupContext hash, confirmation tag), `$15` the signed request
    /// as JSON, `$16` the entry's id, `$17` the response up to the receivedAt value, `$18` the stored
    /// answer of a stale attempt, `$19` the messageAvailableEvent's DAG-CBOR after its seq, `$20`–`$22`
    /// the token (iss, jti, end), `$23` signedAt. With `pushing`, the outbox rows of the messages'
    /// recipients too (`ChatPushSQL.batchStep`).
    static func append(pushing: Bool) -> String { pushing ? appendPushing : appendOnly }

    private static let appendOnly = append(pushStep: "")
    private static let appendPushing = append(pushStep: ChatPushSQL.batchStep)

    private static func append(pushStep: String) -> String { """
        WITH input AS (
            SELECT * FROM unnest($1::bytea[], $2::text[], $3::bytea[], $4::text[], $5::int8[], $6::bytea[], $7::bytea[],
                                 $8::bytea[], $9::int8[], $10::int8[], $11::bytea[], $12::int8[], $13::bytea[], $14::bytea[],
                                 $15::bytea[], $16::bytea[], $17::bytea[], $18::bytea[], $19::bytea[], $20::text[], $21::text[],
                                 $22::timestamptz[], $23::timestamptz[])
                WITH ORDINALITY AS i(conversation_id, actor, device, key_id, auth_generation, operation_id, request_digest,
                                     signature, generation, state_version, group_id, epoch, group_context_hash, confirmation_tag,
                                     signed_request, entry_id, response_prefix, stale_response, event_suffix, iss, jti, until,
                                     signed_at, ord)
        ),
        clock AS (SELECT date_trunc('milliseconds', clock_timestamp()) AS at),
        replay AS (
            INSERT INTO auth_replay (iss, jti, expires_at) SELECT iss, jti, until FROM input WHERE iss IS NOT NULL
            RETURNING iss
        ),
        checked AS (
            SELECT i.*, o.request_digest AS op_digest, o.signature AS op_signature, o.status AS op_status, o.response AS op_response,
                   d.status AS device_status, d.auth_generation AS device_generation, d.key_id AS device_key,
                   c.generation AS c_generation, c.state_version AS c_state_version, c.group_id AS c_group_id, c.epoch AS c_epoch,
                   c.group_context_hash AS c_hash, c.confirmation_tag AS c_tag, c.lifecycle, c.last_seq,
                   l.leaf IS NOT NULL AS leaf
            FROM input i
            LEFT JOIN LATERAL (SELECT request_digest, signature, status, response FROM chat_operations
                               WHERE actor_did = i.actor AND kind = 'applicationSendBody' AND operation_id = i.operation_id LIMIT 1) o ON true
            LEFT JOIN LATERAL (SELECT status, auth_generation, key_id FROM chat_devices
                               WHERE user_did = i.actor AND device_id = i.device LIMIT 1) d ON true
            LEFT JOIN LATERAL (SELECT generation, state_version, group_id, epoch, group_context_hash, confirmation_tag, lifecycle,
                                      last_seq FROM chat_conversations WHERE conversation_id = i.conversation_id LIMIT 1) c ON true
            LEFT JOIN LATERAL (SELECT true AS leaf FROM chat_leaves
                               WHERE conversation_id = i.conversation_id AND user_did = i.actor AND device_id = i.device LIMIT 1) l ON true
        ),
        outcome AS (
            SELECT *, CASE
                WHEN op_digest IS NOT NULL AND op_digest = request_digest AND op_signature = signature THEN 'repeat'
                WHEN op_digest IS NOT NULL THEN 'idempotencyConflict'
                WHEN signed_at < (SELECT at FROM clock) - interval '300 seconds'
                  OR signed_at > (SELECT at FROM clock) + interval '60 seconds' THEN 'signedAt'
                WHEN device_status IS NULL THEN 'deviceNotRegistered'
                WHEN device_status <> 'active' THEN 'deviceRevoked'
                WHEN device_generation <> auth_generation OR device_key <> key_id THEN 'deviceBindingMismatch'
                WHEN c_generation IS NULL THEN 'conversationNotFound'
                WHEN lifecycle <> 'active' OR c_generation <> generation OR c_state_version <> state_version OR c_group_id <> group_id
                  OR c_epoch <> epoch OR c_hash <> group_context_hash OR c_tag <> confirmation_tag THEN 'staleCoordinates'
                WHEN NOT leaf THEN 'deviceNotLeaf'
                ELSE 'stored' END AS status
            FROM checked
        ),
        accepted AS (
            SELECT o.*, o.last_seq + row_number() OVER (PARTITION BY conversation_id ORDER BY ord) AS seq,
                   row_number() OVER (ORDER BY ord) AS k
            FROM outcome o WHERE status = 'stored'
        ),
        answered AS (
            SELECT a.*, response_prefix
                || convert_to(to_char((SELECT at FROM clock) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'UTF8')
                || convert_to('","seq":' || seq || ',"signedRequest":', 'UTF8') || signed_request || convert_to('}}', 'UTF8') AS response
            FROM accepted a
        ),
        stored AS (
            INSERT INTO chat_entries (conversation_id, seq, entry_id, kind, signed_request, server_fields, request_digest, received_at)
            SELECT conversation_id, seq, entry_id, 'applicationEntry', signed_request, NULL, request_digest, (SELECT at FROM clock)
            FROM accepted RETURNING seq
        ),
        counters AS (
            UPDATE chat_conversations c SET last_seq = a.last_seq
            FROM (SELECT conversation_id, max(seq) AS last_seq FROM accepted GROUP BY conversation_id) a
            WHERE c.conversation_id = a.conversation_id RETURNING c.conversation_id
        ),
        operations AS (
            INSERT INTO chat_operations (actor_did, kind, operation_id, request_digest, signature, status, response, created_at)
            SELECT actor, 'applicationSendBody', operation_id, request_digest, signature, 200, response, (SELECT at FROM clock)
            FROM answered
            UNION ALL
            SELECT actor, 'applicationSendBody', operation_id, request_digest, signature, 400, stale_response, (SELECT at FROM clock)
            FROM outcome WHERE status = 'staleCoordinates'
            RETURNING operation_id
        ),
        \(pushStep)
        -- The event head is taken last, so that its lock is held from here to the commit only.
        head AS (
            UPDATE chat_event_head SET position = position + (SELECT count(*) FROM accepted)
            WHERE id = 1 AND (SELECT count(*) FROM stored) + (SELECT count(*) FROM counters) + (SELECT count(*) FROM operations) >= 0
            RETURNING position
        ),
        events AS (
            INSERT INTO chat_device_events (user_did, device_id, position, payload, created_at)
            SELECT l.user_did, l.device_id, (SELECT position FROM head) - (SELECT count(*) FROM accepted) + a.k,
                   '\\xa363736571'::bytea || chat_cbor_uint(a.seq) || a.event_suffix, (SELECT at FROM clock)
            FROM accepted a
            JOIN chat_leaves l ON l.conversation_id = a.conversation_id
            JOIN chat_devices d ON d.user_did = l.user_did AND d.device_id = l.device_id AND d.status = 'active'
            WHERE NOT (l.user_did = a.actor AND l.device_id = a.device)
            RETURNING position
        )
        SELECT o.ord, o.status, coalesce(a.response, CASE WHEN o.status = 'staleCoordinates' THEN o.stale_response END,
                                         o.op_response) AS response,
               CASE WHEN o.status = 'repeat' THEN o.op_status WHEN o.status = 'stored' THEN 200 ELSE 400 END AS http_status,
               (SELECT count(*) FROM events) + (SELECT count(*) FROM replay) AS written
        FROM outcome o LEFT JOIN answered a ON a.ord = o.ord
        ORDER BY o.ord
        """
    }

    static func outcome(_ row: PGRow) throws -> ChatBatchedOutcome {
        let status = try row.string("status")
        switch status {
        case "stored", "repeat", "staleCoordinates":
            return .answered(status: try row.int("http_status"), body: try row.bytes("response"))
        case "idempotencyConflict": return .refused(ChatRefusal(.idempotencyConflict, "this operation id was used for another request"))
        case "signedAt":
            return .refused(ChatRefusal(.invalidRequest, "signedAt must be within 300 s before and 60 s after the service's clock"))
        case "deviceNotRegistered": return .refused(ChatRefusal(.deviceNotRegistered, "the device is not registered"))
        case "deviceRevoked": return .refused(ChatRefusal(.deviceRevoked, "the device was revoked"))
        case "deviceBindingMismatch":
            return .refused(ChatRefusal(.deviceBindingMismatch, "the device's key or authentication generation differs"))
        case "conversationNotFound": return .refused(ChatRefusal(.conversationNotFound, "no such conversation"))
        case "deviceNotLeaf": return .refused(ChatRefusal(.deviceNotLeaf, "the signing device holds no leaf in this conversation"))
        default: throw StoreError.decoding("unknown chat batch status \(status)")
        }
    }
}
