-- Retention (MESSAGE_TTL_DAYS): the purge finds expired rows by age across all conversations, a
-- bounded batch at a time, so each table it trims needs an index on created_at.
CREATE INDEX messages_created_at ON messages (created_at);
CREATE INDEX events_created_at ON events (created_at);
CREATE INDEX commits_created_at ON commits (created_at);
