-- Thin delivery-service mode: where each user keeps ciphertext (API.md, "Thin delivery-service
-- mode"). One registration per user; registering again replaces it. The service never reads the
-- storage itself, it only hands the pointer to senders as part of sendMessage's recipients.
CREATE TABLE user_storage (
    did           text PRIMARY KEY,
    provider      text NOT NULL CHECK (provider IN ('cloudkit', 'firestore', 'gdrive', 's3')),
    endpoint      text CHECK (octet_length(endpoint) BETWEEN 1 AND 512),
    -- A flat JSON object of string values, e.g. {"container": "iCloud.blue.catbird"}.
    config        jsonb NOT NULL DEFAULT '{}'::jsonb
                  CHECK (jsonb_typeof(config) = 'object' AND octet_length(config::text) <= 8192),
    registered_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
