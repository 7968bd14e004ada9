-- A Welcome is stored once per commit (issue 14): `welcomes` keeps one row per recipient, pointing
-- to it. Before, every recipient's row held its own copy, so a Welcome to n members took n copies,
-- and one naming a KeyPackage many times was stored as many times.
CREATE TABLE welcome_messages (
    convo_id   text NOT NULL REFERENCES convos (convo_id) ON DELETE CASCADE,
    id         bigint GENERATED ALWAYS AS IDENTITY,
    -- The epoch the Welcome admits to.
    epoch      bigint NOT NULL,
    welcome    bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (convo_id, id)
);

ALTER TABLE welcomes ADD COLUMN welcome_id bigint;
-- Rows stored before: one Welcome per conversation, epoch and content, shared by the rows holding it.
INSERT INTO welcome_messages (convo_id, epoch, welcome, created_at)
    SELECT convo_id, epoch, welcome, min(created_at) FROM welcomes GROUP BY convo_id, epoch, welcome;
UPDATE welcomes w SET welcome_id = m.id FROM welcome_messages m
    WHERE m.convo_id = w.convo_id AND m.epoch = w.epoch AND m.welcome = w.welcome;
ALTER TABLE welcomes
    ALTER COLUMN welcome_id SET NOT NULL,
    DROP COLUMN welcome,
    ADD FOREIGN KEY (convo_id, welcome_id) REFERENCES welcome_messages (convo_id, id) ON DELETE CASCADE;
CREATE INDEX welcomes_welcome ON welcomes (convo_id, welcome_id);

-- leaveConvo keeps one self-Remove per leaf and epoch; it looks for the leaf's earlier one here
-- instead of reading every proposal of the epoch.
CREATE INDEX pending_proposals_remove_leaf ON pending_proposals (convo_id, epoch, sender_leaf) WHERE kind = 'remove';
