-- Quotas (issue 14, docs/SECURITY.md): stored message bytes per sender, conversations per
-- creator, KeyPackage consumption per requester and per owner, and last-resort KeyPackages.

-- What one stored application message costs its sender against MESSAGE_QUOTA_BYTES: the
-- ciphertext the service keeps (none in thin mode) plus 256 bytes for its rows (the message, its
-- messageEvent, their index entries). Written once, here: the append charges it, the purge gives
-- back the same amount. A change of the formula needs a migration that recomputes message_usage.
CREATE FUNCTION message_quota_charge(stored_bytes integer) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT $1::bigint + 256 $$;

-- Each sender's charge for the application messages still stored. The row is also the lock that
-- serialises one sender's appends, so concurrent batches cannot pass the quota together.
CREATE TABLE message_usage (
    did   text PRIMARY KEY,
    bytes bigint NOT NULL DEFAULT 0 CHECK (bytes >= 0)
);
INSERT INTO message_usage (did, bytes)
SELECT sender_did, sum(message_quota_charge(CASE WHEN ciphertext IS NULL THEN 0 ELSE size END))
FROM messages WHERE message_type = 'app' GROUP BY sender_did;

-- MAX_CONVOS_PER_USER counts the conversations a DID created and still belongs to.
CREATE INDEX convos_by_creator ON convos (creator_did);

-- RFC 9750 §5.1, draft-ietf-mls-extensions (last_resort_key_package): a package that is never
-- consumed, handed out only when the owner has no other. At most one per owner and suite.
ALTER TABLE key_packages ADD COLUMN last_resort boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX key_packages_one_last_resort ON key_packages (owner_did, cipher_suite) WHERE last_resort;

-- Every package a commit added (consumed, or a last-resort one used), for the limits per requester
-- and per owner over KEY_PACKAGE_USE_WINDOW; rows older than the window are purged.
CREATE TABLE key_package_uses (
    owner_did    text NOT NULL,
    consumer_did text NOT NULL,
    last_resort  boolean NOT NULL,
    used_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX key_package_uses_by_owner ON key_package_uses (owner_did, used_at);
CREATE INDEX key_package_uses_used_at ON key_package_uses (used_at);
