-- A message's entry (its signed request, ~2.4 KB as JSON for a 1 KB PrivateMessage) and its
-- operation's stored answer (which holds the entry) exceed TOAST_TUPLE_THRESHOLD (~2 KB), where
-- PostgreSQL would first try to compress them, in vain (base64 of ciphertext and signatures), and
-- then move them out of line: two more rows and index entries in the TOAST tables for each. Rows up
-- to a page's worth (8160 bytes) stay in line and as they are; larger values go out of line
-- without a compression attempt (STORAGE EXTERNAL).
ALTER TABLE chat_entries SET (toast_tuple_target = 8160);
ALTER TABLE chat_entries ALTER COLUMN signed_request SET STORAGE EXTERNAL;
ALTER TABLE chat_operations SET (toast_tuple_target = 8160);
ALTER TABLE chat_operations ALTER COLUMN response SET STORAGE EXTERNAL;
