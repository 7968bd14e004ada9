-- The chat contract's leaving, closing and reset (docs/chat.md).

-- A durable leave request (defs leaveRequestBody): a member with leaves asks another DID's leaf to
-- commit its removal. Pending until fulfilled, cancelled, expired (24 h) or made stale by any
-- change of the coordinates it was made at; one pending per participant.
CREATE TABLE chat_leave_requests (
    leave_request_id    bytea PRIMARY KEY,
    conversation_id     bytea NOT NULL REFERENCES chat_conversations ON DELETE CASCADE,
    requester_did       text NOT NULL,
    requester_device_id bytea NOT NULL,
    prior               bytea NOT NULL,
    bound_state_version bigint NOT NULL,
    status              text NOT NULL CHECK (status IN ('pending', 'fulfilled', 'cancelled', 'expired', 'stale')),
    requested_at        timestamptz NOT NULL,
    expires_at          timestamptz NOT NULL
);
CREATE UNIQUE INDEX chat_leave_requests_one_pending ON chat_leave_requests (conversation_id, requester_did) WHERE status = 'pending';

-- A reset request (defs resetRequestBody): recorded for an admin to act on; one pending per conversation.
CREATE TABLE chat_reset_requests (
    reset_request_id    bytea PRIMARY KEY,
    conversation_id     bytea NOT NULL REFERENCES chat_conversations ON DELETE CASCADE,
    requester_did       text NOT NULL,
    requester_device_id bytea NOT NULL,
    prior               bytea NOT NULL,
    bound_state_version bigint NOT NULL,
    reason              text NOT NULL,
    status              text NOT NULL CHECK (status IN ('pending', 'stale', 'consumed', 'expired', 'revoked')),
    requested_at        timestamptz NOT NULL,
    expires_at          timestamptz NOT NULL
);
CREATE UNIQUE INDEX chat_reset_requests_one_pending ON chat_reset_requests (conversation_id) WHERE status = 'pending';

-- A closed conversation keeps its row, its coordinates superseded, as its tombstone.
ALTER TABLE chat_conversations
    ADD COLUMN closed_at           timestamptz,
    ADD COLUMN closed_by_did       text,
    ADD COLUMN closed_by_device_id bytea,
    ADD COLUMN terminal_seq        bigint;

-- When and how a device's interval ended: 'removed' (a commit removed its leaf: the inventory's
-- removal tombstone), 'replaced' (a new leaf took over), 'reset' or 'closed' (the generation ended).
ALTER TABLE chat_intervals
    ADD COLUMN ended_at timestamptz,
    ADD COLUMN end_kind text CHECK (end_kind IN ('removed', 'replaced', 'reset', 'closed'));
