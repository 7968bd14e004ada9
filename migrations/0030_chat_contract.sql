-- The blue.catbird.chat.* contract (docs/chat.md): devices, conversations addressed by UUID and
-- coordinates, signed entries, Welcomes, leaf recovery, inventory sessions, tickets and the
-- per-device event stream. UUIDs are stored as their 16 raw bytes; signed requests as the canonical
-- JSON the service returns (their canonical DAG-CBOR can always be rebuilt from it).

-- A device (CHAT.md §4): a client-generated UUIDv4 per user, an immutable Ed25519 key (which is
-- also the signature key of every MLS leaf the device has), and an authentication generation.
CREATE TABLE chat_devices (
    user_did             text NOT NULL,
    device_id            bytea NOT NULL CHECK (octet_length(device_id) = 16),
    key_id               text NOT NULL UNIQUE,
    signature_public_key bytea NOT NULL CHECK (octet_length(signature_public_key) = 32),
    auth_generation      bigint NOT NULL CHECK (auth_generation >= 1),
    status               text NOT NULL CHECK (status IN ('active', 'revoked')),
    device_name          text NOT NULL,
    -- The #deviceCapability the device enrolled with, as canonical JSON.
    capability           bytea NOT NULL,
    created_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL,
    PRIMARY KEY (user_did, device_id)
);

-- A device's KeyPackages. The service reserves them (acceptConversation, requestLeafRecovery);
-- nobody fetches them. wrapper is the exact MLSMessage the device uploaded.
CREATE TABLE chat_key_packages (
    key_package_ref bytea PRIMARY KEY CHECK (octet_length(key_package_ref) = 32),
    owner_did       text NOT NULL,
    owner_device_id bytea NOT NULL,
    wrapper         bytea NOT NULL,
    wrapper_sha256  bytea NOT NULL,
    not_after       timestamptz NOT NULL,
    status          text NOT NULL CHECK (status IN ('available', 'reserved', 'consumed', 'expired', 'revoked')),
    reserved_for    bytea,
    created_at      timestamptz NOT NULL,
    FOREIGN KEY (owner_did, owner_device_id) REFERENCES chat_devices (user_did, device_id)
);
CREATE INDEX chat_key_packages_by_owner ON chat_key_packages (owner_did, owner_device_id, status, key_package_ref);

-- A conversation and its current coordinates. public_state is the PublicGroup the service follows;
-- metadata_snapshot the encrypted #metadataSnapshot as canonical JSON. direct_pair holds the two DIDs
-- of a direct conversation ("<smaller> <larger>"), unique: one direct conversation per pair.
CREATE TABLE chat_conversations (
    conversation_id    bytea PRIMARY KEY CHECK (octet_length(conversation_id) = 16),
    kind               text NOT NULL CHECK (kind IN ('direct', 'group')),
    generation         bigint NOT NULL CHECK (generation >= 0),
    state_version      bigint NOT NULL CHECK (state_version >= 0),
    group_id           bytea NOT NULL UNIQUE CHECK (octet_length(group_id) = 32),
    epoch              bigint NOT NULL CHECK (epoch >= 0),
    group_context_hash bytea NOT NULL CHECK (octet_length(group_context_hash) = 32),
    confirmation_tag   bytea NOT NULL CHECK (octet_length(confirmation_tag) = 32),
    lifecycle          text NOT NULL CHECK (lifecycle IN ('active', 'superseded')),
    cipher_suite       integer NOT NULL,
    public_state       bytea NOT NULL,
    metadata_snapshot  bytea NOT NULL,
    last_seq           bigint NOT NULL DEFAULT 0,
    direct_pair        text UNIQUE,
    created_at         timestamptz NOT NULL
);

-- Logical participants (#participant): pending invitees have no leaves and no authority.
CREATE TABLE chat_participants (
    conversation_id bytea NOT NULL REFERENCES chat_conversations ON DELETE CASCADE,
    user_did        text NOT NULL,
    role            text NOT NULL CHECK (role IN ('admin', 'member')),
    status          text NOT NULL CHECK (status IN ('pending', 'active')),
    -- #invitationProvenance as canonical JSON; absent for the creator.
    provenance      bytea,
    PRIMARY KEY (conversation_id, user_did)
);
CREATE INDEX chat_participants_by_did ON chat_participants (user_did, conversation_id);

-- The current MLS leaves: one per (user, device), each a device's open interval.
CREATE TABLE chat_leaves (
    conversation_id      bytea NOT NULL REFERENCES chat_conversations ON DELETE CASCADE,
    user_did             text NOT NULL,
    device_id            bytea NOT NULL,
    leaf_index           bigint NOT NULL,
    leaf_origin          text NOT NULL CHECK (leaf_origin IN ('genesis', 'keyPackage')),
    join_key_package_ref bytea,
    interval_id          bytea NOT NULL,
    PRIMARY KEY (conversation_id, user_did, device_id),
    UNIQUE (conversation_id, leaf_index)
);
CREATE INDEX chat_leaves_by_device ON chat_leaves (user_did, device_id);

-- What a device may read: from the entry that gave it a leaf to the one that took it away
-- (inclusive), per conversation. A re-added device gets a new interval, never the gap.
CREATE TABLE chat_intervals (
    interval_id     bytea PRIMARY KEY,
    conversation_id bytea NOT NULL REFERENCES chat_conversations ON DELETE CASCADE,
    user_did        text NOT NULL,
    device_id       bytea NOT NULL,
    start_seq       bigint NOT NULL,
    end_seq         bigint
);
CREATE INDEX chat_intervals_by_device ON chat_intervals (user_did, device_id, conversation_id, start_seq);

-- The conversation's log: every entry is the signed request that made it, as canonical JSON, with
-- the server's own fields of its variant (participantAcceptanceEntry's recovery) beside it.
CREATE TABLE chat_entries (
    conversation_id bytea NOT NULL REFERENCES chat_conversations ON DELETE CASCADE,
    seq             bigint NOT NULL,
    entry_id        bytea NOT NULL UNIQUE,
    kind            text NOT NULL,
    signed_request  bytea NOT NULL,
    server_fields   bytea,
    request_digest  bytea NOT NULL,
    received_at     timestamptz NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);

-- Signed operations by their client-chosen id (a message's messageId, every other body's
-- idempotencyKey): an exact replay (same digest and signature) gets the stored response; the same id
-- with other bytes is IdempotencyConflict. A refused message id is kept with its error (retired).
CREATE TABLE chat_operations (
    actor_did      text NOT NULL,
    kind           text NOT NULL,
    operation_id   bytea NOT NULL,
    request_digest bytea NOT NULL,
    signature      bytea NOT NULL,
    status         integer NOT NULL,
    response       bytea NOT NULL,
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (actor_did, kind, operation_id)
);
CREATE INDEX chat_operations_by_age ON chat_operations (created_at);

-- Leaf recovery requests (kind add or replace) and the KeyPackage each reserved.
CREATE TABLE chat_recoveries (
    recovery_request_id bytea PRIMARY KEY,
    conversation_id     bytea NOT NULL REFERENCES chat_conversations ON DELETE CASCADE,
    generation          bigint NOT NULL,
    requester_did       text NOT NULL,
    requester_device_id bytea NOT NULL,
    requester_key_id    text NOT NULL,
    requester_auth_generation bigint NOT NULL,
    kind                text NOT NULL CHECK (kind IN ('add', 'replace')),
    -- The coordinates it is bound to (#conversationCoordinates as canonical JSON).
    bound_coordinate    bytea NOT NULL,
    bound_state_version bigint NOT NULL,
    key_package_ref     bytea NOT NULL,
    status              text NOT NULL CHECK (status IN ('open', 'fulfilled', 'cancelled', 'expired', 'superseded')),
    reservation_status  text NOT NULL CHECK (reservation_status IN ('active', 'consumed', 'expired', 'released')),
    requested_at        timestamptz NOT NULL,
    expires_at          timestamptz NOT NULL
);
CREATE UNIQUE INDEX chat_recoveries_one_open ON chat_recoveries (conversation_id, generation, requester_did, requester_device_id)
    WHERE status = 'open';
CREATE INDEX chat_recoveries_by_requester ON chat_recoveries (requester_did, requester_device_id, status);

-- One row per Welcome delivery (#welcomeView), kept with its terminal disposition.
CREATE TABLE chat_welcomes (
    welcome_id          bytea PRIMARY KEY,
    conversation_id     bytea NOT NULL REFERENCES chat_conversations ON DELETE CASCADE,
    transition_seq      bigint NOT NULL,
    coordinates         bytea NOT NULL,
    status              text NOT NULL CHECK (status IN ('pending', 'acknowledged', 'rejected', 'expired', 'superseded')),
    opaque_welcome      bytea NOT NULL,
    sha256              bytea NOT NULL,
    recipient_did       text NOT NULL,
    recipient_device_id bytea NOT NULL,
    recovery_request_id bytea NOT NULL,
    key_package_ref     bytea NOT NULL,
    expires_at          timestamptz NOT NULL,
    terminal_at         timestamptz
);
CREATE INDEX chat_welcomes_by_recipient ON chat_welcomes (recipient_did, recipient_device_id, status, welcome_id);

-- Recovery work (#recoveryWorkView): a rejected or expired Welcome tells its device to ask again.
CREATE TABLE chat_recovery_work (
    recovery_work_id    bytea PRIMARY KEY,
    conversation_id     bytea NOT NULL REFERENCES chat_conversations ON DELETE CASCADE,
    recipient_did       text NOT NULL,
    recipient_device_id bytea NOT NULL,
    source_kind         text NOT NULL CHECK (source_kind IN ('welcomeExpired', 'welcomeRejected')),
    source_id           bytea NOT NULL UNIQUE,
    source_coordinate   bytea NOT NULL,
    status              text NOT NULL CHECK (status IN ('pending', 'completed', 'superseded')),
    created_at          timestamptz NOT NULL,
    terminal_transition_id bytea,
    terminal_at         timestamptz
);
CREATE INDEX chat_recovery_work_by_recipient ON chat_recovery_work (recipient_did, recipient_device_id, created_at);

-- Metadata snapshot nonces, unique per (conversation, generation, epoch) (defs #metadataSnapshot).
CREATE TABLE chat_metadata_nonces (
    conversation_id bytea NOT NULL REFERENCES chat_conversations ON DELETE CASCADE,
    generation      bigint NOT NULL,
    epoch           bigint NOT NULL,
    nonce           bytea NOT NULL,
    PRIMARY KEY (conversation_id, generation, epoch, nonce)
);

-- The per-device event stream. Every writer takes the next positions from chat_event_head under its
-- row lock, held to commit, so positions become visible in order: a reader that saw position p has
-- seen every event before it. Each event is stored once per device that may see it.
CREATE TABLE chat_event_head (
    id       integer PRIMARY KEY CHECK (id = 1),
    position bigint NOT NULL
);
INSERT INTO chat_event_head VALUES (1, 0);

CREATE TABLE chat_device_events (
    user_did   text NOT NULL,
    device_id  bytea NOT NULL,
    position   bigint NOT NULL,
    -- The #protocolEventPayload member ($type included) as canonical DAG-CBOR of its data.
    payload    bytea NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_did, device_id, position)
);
CREATE INDEX chat_device_events_by_position ON chat_device_events (position);

-- An inventory session: the conversations, Welcomes and recovery inbox of one device as of one
-- event position, paged to the end before a subscription ticket is issued.
CREATE TABLE chat_inventory_sessions (
    session_id         text PRIMARY KEY,
    user_did           text NOT NULL,
    device_id          bytea NOT NULL,
    auth_generation    bigint NOT NULL,
    snapshot_position  bigint NOT NULL,
    conversations_done boolean NOT NULL DEFAULT false,
    welcomes_done      boolean NOT NULL DEFAULT false,
    recovery_done      boolean NOT NULL DEFAULT false,
    expires_at         timestamptz NOT NULL
);
CREATE INDEX chat_inventory_sessions_by_expiry ON chat_inventory_sessions (expires_at);

-- Subscription tickets: the SHA-256 of a random ticket, bound to device, session and cursor, used once.
CREATE TABLE chat_tickets (
    ticket_hash     bytea PRIMARY KEY,
    user_did        text NOT NULL,
    device_id       bytea NOT NULL,
    auth_generation bigint NOT NULL,
    session_id      text NOT NULL,
    position        bigint NOT NULL,
    expires_at      timestamptz NOT NULL,
    consumed_at     timestamptz
);
CREATE INDEX chat_tickets_by_expiry ON chat_tickets (expires_at);
