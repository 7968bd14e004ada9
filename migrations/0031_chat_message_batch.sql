-- The chat contract's sendMessage batch (DeliveryStore/Chat/ChatMessageBatchSQL.swift) writes each
-- accepted message's messageAvailableEvent in the statement that takes its seq: the event's
-- canonical DAG-CBOR is the map's head and its "seq" key, this seq as a CBOR unsigned integer in
-- its shortest form (RFC 8949 §4.2.1), and the rest of the map.
CREATE FUNCTION chat_cbor_uint(n bigint) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT CASE
        WHEN n < 24 THEN set_byte('\x00'::bytea, 0, n::int)
        WHEN n < 256 THEN '\x18'::bytea || set_byte('\x00'::bytea, 0, n::int)
        WHEN n < 65536 THEN '\x19'::bytea || substring(int4send(n::int) FROM 3)
        WHEN n < 4294967296 THEN '\x1a'::bytea || substring(int8send(n) FROM 5)
        ELSE '\x1b'::bytea || int8send(n)
    END
$$;
