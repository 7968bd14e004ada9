-- The delivery service's tables (module DeliveryStore).
-- Every conversation-scoped table has convo_id first in its primary key and unique constraints, so
-- the tables can be distributed (and co-located) by convo_id.

-- One row per conversation (= MLS group). The row is the lock that serializes every change to the
-- conversation: seq and event counters, epoch, members, commits.
CREATE TABLE convos (
    convo_id         text PRIMARY KEY,
    group_id         bytea NOT NULL,
    cipher_suite     integer NOT NULL CHECK (cipher_suite BETWEEN 0 AND 65535),
    epoch            bigint NOT NULL CHECK (epoch >= 0),
    public_state     bytea NOT NULL,
    group_info       bytea,
    group_info_epoch bigint,
    creator_did      text NOT NULL,
    name             text,
    description      text,
    created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_message_at  timestamptz,
    last_seq         bigint NOT NULL DEFAULT 0,
    last_event_seq   bigint NOT NULL DEFAULT 0,
    -- convo_id is the hex of group_id, which makes group_id unique without a second unique index.
    CONSTRAINT convos_convo_id_is_group_id_hex CHECK (convo_id = encode(group_id, 'hex')),
    CONSTRAINT convos_group_id_length CHECK (octet_length(group_id) BETWEEN 1 AND 255),
    CONSTRAINT convos_group_info_with_epoch CHECK ((group_info IS NULL) = (group_info_epoch IS NULL))
);

-- Leaf occupants over time. A row whose left_at is NULL is a current member; a leaf index can be
-- reused by a later member, so history rows are keyed by the epoch the occupant joined in.
CREATE TABLE members (
    convo_id            text NOT NULL REFERENCES convos (convo_id) ON DELETE CASCADE,
    leaf_index          bigint NOT NULL CHECK (leaf_index BETWEEN 0 AND 4294967295),
    joined_epoch        bigint NOT NULL,
    did                 text NOT NULL,
    credential_identity text NOT NULL,
    credential          bytea NOT NULL,
    is_admin            boolean NOT NULL DEFAULT false,
    joined_at           timestamptz NOT NULL DEFAULT clock_timestamp(),
    left_at             timestamptz,
    left_epoch          bigint,
    left_reason         text CHECK (left_reason IN ('left', 'removed')),
    PRIMARY KEY (convo_id, leaf_index, joined_epoch),
    CONSTRAINT members_left_consistent CHECK (
        (left_at IS NULL AND left_epoch IS NULL AND left_reason IS NULL) OR
        (left_at IS NOT NULL AND left_epoch IS NOT NULL AND left_reason IS NOT NULL))
);
CREATE UNIQUE INDEX members_current_leaf ON members (convo_id, leaf_index) WHERE left_at IS NULL;
CREATE INDEX members_current_by_did ON members (did, convo_id) WHERE left_at IS NULL;

-- Application messages and commits in delivery order: seq is dense per conversation.
CREATE TABLE messages (
    convo_id     text NOT NULL REFERENCES convos (convo_id) ON DELETE CASCADE,
    seq          bigint NOT NULL CHECK (seq >= 1),
    msg_id       text NOT NULL,
    epoch        bigint NOT NULL,
    message_type text NOT NULL CHECK (message_type IN ('app', 'commit')),
    sender_did   text NOT NULL,
    -- NULL in thin mode, where the client keeps the ciphertext and only its hash is stored.
    ciphertext   bytea,
    content_hash bytea,
    size         integer NOT NULL CHECK (size >= 0),
    padded_size  integer CHECK (padded_size >= 0),
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (convo_id, seq),
    CONSTRAINT messages_msg_id_unique UNIQUE (convo_id, msg_id),
    CONSTRAINT messages_has_content CHECK (ciphertext IS NOT NULL OR content_hash IS NOT NULL)
);
CREATE INDEX messages_by_epoch ON messages (convo_id, epoch, seq);

-- One commit per (conversation, epoch): the last line of defence against a forked group.
-- epoch is the epoch the commit was made in; applying it moves the group to epoch + 1.
CREATE TABLE commits (
    convo_id    text NOT NULL REFERENCES convos (convo_id) ON DELETE CASCADE,
    epoch       bigint NOT NULL,
    seq         bigint NOT NULL,
    sender_did  text NOT NULL,
    commit_data bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT commits_one_per_epoch PRIMARY KEY (convo_id, epoch)
);

-- Published KeyPackages, keyed by their RFC 9420 §5.2 KeyPackageRef.
CREATE TABLE key_packages (
    key_package_ref     bytea PRIMARY KEY,
    owner_did           text NOT NULL,
    cipher_suite        integer NOT NULL CHECK (cipher_suite BETWEEN 0 AND 65535),
    key_package         bytea NOT NULL,
    credential_identity text NOT NULL,
    expires_at          timestamptz NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
    consumed_at         timestamptz,
    consumed_in_convo   text
);
-- "The oldest unconsumed package of this owner and suite", and the per-owner count for the cap.
CREATE INDEX key_packages_available ON key_packages (owner_did, cipher_suite, created_at, key_package_ref)
    WHERE consumed_at IS NULL;
CREATE INDEX key_packages_expiry ON key_packages (expires_at);

-- Welcome messages, one row per recipient, kept until confirmed (or reported failed).
CREATE TABLE welcomes (
    convo_id        text NOT NULL REFERENCES convos (convo_id) ON DELETE CASCADE,
    recipient_did   text NOT NULL,
    id              bigint GENERATED ALWAYS AS IDENTITY,
    welcome         bytea NOT NULL,
    key_package_ref bytea,
    epoch           bigint NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    confirmed_at    timestamptz,
    failed_at       timestamptz,
    error_details   text,
    PRIMARY KEY (convo_id, recipient_did, id)
);

-- Proposals sent by reference (e.g. a self-Remove from leaveConvo), kept until a commit covers them.
CREATE TABLE pending_proposals (
    convo_id     text NOT NULL REFERENCES convos (convo_id) ON DELETE CASCADE,
    epoch        bigint NOT NULL,
    proposal_ref bytea NOT NULL,
    sender_leaf  bigint,
    sender_did   text NOT NULL,
    kind         text NOT NULL,
    proposal     bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (convo_id, epoch, proposal_ref)
);

-- Stored responses for repeated idempotency keys. A row whose response_status is NULL exists only
-- inside the transaction that claimed the key.
CREATE TABLE idempotency (
    caller_did      text NOT NULL,
    method          text NOT NULL,
    key             text NOT NULL,
    response_status integer,
    response_body   bytea,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (caller_did, method, key)
);
CREATE INDEX idempotency_created_at ON idempotency (created_at);

-- Per-conversation event log for subscribers, written in the transaction of the change it
-- describes; event_seq is dense per conversation (from convos.last_event_seq).
CREATE TABLE events (
    convo_id   text NOT NULL REFERENCES convos (convo_id) ON DELETE CASCADE,
    event_seq  bigint NOT NULL CHECK (event_seq >= 1),
    type       text NOT NULL,
    payload    jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (convo_id, event_seq)
);
