-- Encrypted attachments (uploadBlob/getBlob). The bytes live on disk under BLOB_DIR at a path
-- named by their SHA-256 (identical content is stored once); a row per upload says who sent it,
-- for which conversation, and how large it is (the per-user quota sums size by owner).
CREATE TABLE blobs (
    blob_id    text PRIMARY KEY CHECK (blob_id ~ '^[a-z2-7]{26}$'),
    sha256     bytea NOT NULL CHECK (octet_length(sha256) = 32),
    size       bigint NOT NULL CHECK (size BETWEEN 1 AND 52428800),
    owner_did  text NOT NULL,
    convo_id   text NOT NULL REFERENCES convos (convo_id) ON DELETE CASCADE,
    mime_type  text NOT NULL CHECK (octet_length(mime_type) BETWEEN 1 AND 255),
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX blobs_owner ON blobs (owner_did);
CREATE INDEX blobs_sha256 ON blobs (sha256);
CREATE INDEX blobs_created_at ON blobs (created_at);

-- sendMessage's attachments: which message refers to which blob. Purging a message drops its
-- links; a blob no row links to is deleted by retention once old enough. The foreign key on
-- blob_id keeps a linked blob from being deleted under a message that still refers to it.
CREATE TABLE message_attachments (
    convo_id text NOT NULL,
    seq      bigint NOT NULL,
    blob_id  text NOT NULL REFERENCES blobs (blob_id),
    PRIMARY KEY (convo_id, seq, blob_id),
    FOREIGN KEY (convo_id, seq) REFERENCES messages (convo_id, seq) ON DELETE CASCADE
);
CREATE INDEX message_attachments_blob ON message_attachments (blob_id);
