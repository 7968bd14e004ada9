-- The chat contract's blobs (docs/chat.md, "Blobs"): a two-step upload (prepareBlobUpload reserves
-- the quota and issues a one-time ticket, uploadBlob streams the bytes) and a binding by a message
-- or a metadata snapshot. The bytes live in v1's blob store (BLOB_DIR, one file per content, named by
-- its SHA-256; see 0007_blobs.sql), and the per-account quota sums v1's `blobs` and the live rows
-- here. A row is never deleted while its conversation lasts: an ended row keeps its blob id spent.
--
-- A row is live while its status is not 'ended' and expires_at is unset or still ahead: a
-- reservation until its ticket expires, an upload in progress for an hour, an unbound upload for
-- an hour, a bound blob for as long as it stays bound. The maintenance job ends dead rows and then
-- removes their content files unless another row uses them.
CREATE TABLE chat_blobs (
    blob_id            bytea PRIMARY KEY CHECK (octet_length(blob_id) = 16),
    owner_did          text NOT NULL,
    owner_device_id    bytea NOT NULL CHECK (octet_length(owner_device_id) = 16),
    conversation_id    bytea NOT NULL REFERENCES chat_conversations ON DELETE CASCADE,
    purpose            text NOT NULL CHECK (purpose IN ('attachment', 'metadata')),
    sha256             bytea NOT NULL CHECK (octet_length(sha256) = 32),
    size               bigint NOT NULL CHECK (size BETWEEN 17 AND 10485760),
    media_type         text NOT NULL CHECK (octet_length(media_type) BETWEEN 1 AND 512),
    plaintext_size     bigint NOT NULL CHECK (plaintext_size BETWEEN 1 AND 10485744),
    status             text NOT NULL CHECK (status IN ('reserved', 'uploading', 'uploaded', 'bound', 'ended')),
    -- The SHA-256 of the upload ticket, while it may still be used.
    ticket_hash        bytea UNIQUE CHECK (octet_length(ticket_hash) = 32),
    ticket_expires_at  timestamptz NOT NULL,
    expires_at         timestamptz,
    uploaded_at        timestamptz,
    -- An attachment's binding: the seq of the entry that bound it.
    bound_seq          bigint,
    -- A metadata avatar's binding: the metadata version that last carried it.
    bound_metadata_version bigint,
    created_at         timestamptz NOT NULL,
    ended_at           timestamptz
);
CREATE INDEX chat_blobs_live_by_owner ON chat_blobs (owner_did) WHERE status <> 'ended';
CREATE INDEX chat_blobs_by_expiry ON chat_blobs (expires_at) WHERE status <> 'ended';
CREATE INDEX chat_blobs_content ON chat_blobs (sha256) WHERE status IN ('uploaded', 'bound');
CREATE INDEX chat_blobs_avatars ON chat_blobs (conversation_id) WHERE status = 'bound' AND purpose = 'metadata';
