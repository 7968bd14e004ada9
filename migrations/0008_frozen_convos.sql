-- A commit carrying a ReInit freezes its conversation (RFC 9420 §12.4.2: members "MUST NOT use the
-- group to send messages anymore"): frozen_epoch is the epoch that commit created. From then on the
-- service takes no commit, message or proposal for the conversation (409 GroupFrozen).
ALTER TABLE convos ADD COLUMN frozen_epoch bigint CHECK (frozen_epoch IS NULL OR frozen_epoch >= 1);
