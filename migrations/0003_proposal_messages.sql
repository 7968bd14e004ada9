-- Standalone proposals (e.g. a leaving member's self-Remove) are delivered to members as messages,
-- so any member can commit them by reference.
ALTER TABLE messages DROP CONSTRAINT messages_message_type_check;
ALTER TABLE messages ADD CONSTRAINT messages_message_type_check
    CHECK (message_type IN ('app', 'commit', 'proposal'));
