-- AUTH.md check 9: the (iss, jti) pair of every accepted service-auth token, kept until
-- exp + clock skew so that a second use of the same token fails on every node.
CREATE TABLE IF NOT EXISTS auth_replay (
    iss text NOT NULL,
    jti text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (iss, jti)
);

-- For the periodic cleanup, which deletes by expiry.
CREATE INDEX IF NOT EXISTS auth_replay_expires_at ON auth_replay (expires_at);
