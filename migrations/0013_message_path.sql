-- The sendMessage path (issue 15): fewer index entries per message, and the check that lets a
-- batch charge its senders' quota without locking their rows for its whole length.

-- No query reads messages by epoch: getMessages walks (convo_id, seq), whose primary key serves it.
DROP INDEX messages_by_epoch;

-- The retention purges and the replay cleanup read these columns by range; rows arrive in about
-- their order, so a BRIN index (a summary per 128 pages) finds them at a fraction of a B-tree's
-- cost per insert, the cost every message pays.
DROP INDEX messages_created_at;
CREATE INDEX messages_created_at ON messages USING brin (created_at);
DROP INDEX events_created_at;
CREATE INDEX events_created_at ON events USING brin (created_at);
DROP INDEX auth_replay_expires_at;
CREATE INDEX auth_replay_expires_at ON auth_replay USING brin (expires_at);

-- A message batch that read its senders' message_usage without their row locks charges them at
-- its very end, each under its row lock, only if the charge still fits. It stands only if every
-- sender was charged: otherwise this aborts the transaction with SQLSTATE CB001, and the batch runs
-- again with the rows locked first, judging each message against the final usage
-- (MessageBatchSQL.swift).
CREATE FUNCTION message_quota_settle(senders bigint, charged bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    IF charged <> senders THEN
        RAISE EXCEPTION 'a sender''s message quota moved during the batch' USING ERRCODE = 'CB001';
    END IF;
    RETURN true;
END $$;
