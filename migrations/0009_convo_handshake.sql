-- A conversation's handshake policy (issue 17, docs/sealed-commits.md): 'public' conversations take
-- commits and proposals as PublicMessages only, each validated in full; 'sealed' ones also take them
-- as PrivateMessages (OpenMLS's pure-ciphertext policy), a commit then checked through the GroupInfo
-- of the epoch it creates. Fixed at creation.
ALTER TABLE convos ADD COLUMN handshake text NOT NULL DEFAULT 'public' CHECK (handshake IN ('public', 'sealed'));
