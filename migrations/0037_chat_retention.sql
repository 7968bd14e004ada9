-- Chat retention (MESSAGE_TTL_DAYS): the device event stream, completed operations and expired
-- inventory sessions and tickets are purged by the retention job; chat entries (the conversations'
-- logs) are kept. The horizon is the highest event position purged: a stream whose cursor lies below
-- it may have lost events and is refused with CursorExpired (the client pages the inventory again).
CREATE TABLE chat_event_horizon (
    id       integer PRIMARY KEY CHECK (id = 1),
    position bigint NOT NULL
);
INSERT INTO chat_event_horizon VALUES (1, 0);
