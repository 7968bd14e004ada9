-- Push to devices that hold no socket (docs/push.md): device tokens, the transactional outbox, and
-- which devices hold a live subscription.

-- One row per device that registered a push token: the device is the user's `did#device_id`, the
-- identity its KeyPackages carry (blue.catbird.mls.registerDeviceToken), or a device of another
-- registry keyed the same way. A token belongs to one device: registering it again moves it.
CREATE TABLE push_devices (
    did         text NOT NULL,
    device_id   text NOT NULL CHECK (length(device_id) BETWEEN 1 AND 128),
    platform    text NOT NULL CHECK (platform IN ('ios', 'android', 'web')),
    -- APNs: the device token as lower-case hex; FCM: the registration token; Web Push: the endpoint URL.
    token       text NOT NULL CHECK (length(token) BETWEEN 1 AND 4096),
    environment text NOT NULL DEFAULT 'production' CHECK (environment IN ('production', 'sandbox')),
    -- Web Push only (RFC 8291 §3): the user agent's P-256 key (65 bytes, uncompressed) and auth secret (16 bytes).
    p256dh      bytea,
    auth_secret bytea,
    device_name text CHECK (length(device_name) <= 128),
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (did, device_id),
    CONSTRAINT push_devices_token_unique UNIQUE (platform, token),
    CONSTRAINT push_devices_web_keys CHECK ((platform = 'web') = (p256dh IS NOT NULL AND auth_secret IS NOT NULL)
                                            AND (p256dh IS NULL OR octet_length(p256dh) = 65)
                                            AND (auth_secret IS NULL OR octet_length(auth_secret) = 16))
);

-- The outbox: a push waiting for its device, written in the same transaction as the message, commit
-- or Welcome it announces, so that a 2xx still means committed and a crash after it still pushes.
-- At most one row per device and conversation (coalescing): a later event replaces the earlier
-- one's (`revision` counts the replacements, so a worker that delivered an older revision leaves
-- the newer one to be delivered). The row names what to push, not its bytes: `source` says where
-- the content is read at delivery time ('mls': messages by (convo_id, seq), or welcome_messages
-- by (convo_id, content_id)).
--
-- No foreign keys (as on the message log): unregistering a device deletes its rows, and a row
-- whose device or content is gone is dropped by the worker.
CREATE TABLE push_outbox (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    did         text NOT NULL,
    device_id   text NOT NULL,
    convo_id    text NOT NULL,
    source      text NOT NULL DEFAULT 'mls',
    -- The payload's `type` (mlsMessage, mlsCommit, mlsWelcome, or another source's).
    kind        text NOT NULL,
    seq         bigint,
    epoch       bigint,
    msg_id      text,
    content_id  bigint,
    revision    bigint NOT NULL DEFAULT 1,
    -- When the current event was enqueued: the deadline runs from here.
    enqueued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- Not before: later than enqueued_at while a retry backs off, or while a worker holds the row
    -- (`lease_owner`, a node's id): a node that dies holding it leaves the lease to lapse, and the
    -- row is delivered by whichever node claims it next.
    due_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    attempts    integer NOT NULL DEFAULT 0,
    lease_owner text,
    CONSTRAINT push_outbox_one_per_device_convo UNIQUE (did, device_id, convo_id)
);
CREATE INDEX push_outbox_due ON push_outbox (due_at);

-- Devices holding a live subscription (a subscribeConvoEvents socket whose ticket names the device,
-- an MQTT Session whose Client Identifier is the device id), on any node: not pushed for the
-- conversations the subscription covers (convo_id '*': all of the DID's). Each node writes its own
-- rows and renews `expires_at` while it runs; rows of a node that died lapse on their own.
CREATE TABLE push_presence (
    node        text NOT NULL,
    follower    bigint NOT NULL,
    convo_id    text NOT NULL,
    did         text NOT NULL,
    device_id   text NOT NULL,
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (node, follower, convo_id)
);
CREATE INDEX push_presence_device ON push_presence (did, device_id);
