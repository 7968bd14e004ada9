-- The MQTT listener's Relay protocol (issue 19, docs/mqtt.md).

-- A Relay client_id (32 lower-case hex digits, chosen by the client) is bound for good to the DID
-- that first connected with it; another DID using it is refused (CONNACK 0x85).
CREATE TABLE mqtt_clients (
    client_id  text PRIMARY KEY CHECK (client_id ~ '^[0-9a-f]{32}$'),
    did        text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX mqtt_clients_by_did ON mqtt_clients (did, client_id);

-- Which client published a KeyPackage on relay/k/{client_id}: its Welcome goes to relay/w/{client_id},
-- and the retained value of relay/k/{client_id} is that client's unconsumed packages.
CREATE TABLE mqtt_key_packages (
    key_package_ref bytea PRIMARY KEY REFERENCES key_packages (key_package_ref) ON DELETE CASCADE,
    client_id       text NOT NULL REFERENCES mqtt_clients (client_id)
);
CREATE INDEX mqtt_key_packages_by_client ON mqtt_key_packages (client_id);

-- Welcomes a client acknowledged (PUBACK) on relay/w/{client_id}: never delivered again.
CREATE TABLE mqtt_welcome_acks (
    client_id  text NOT NULL,
    welcome_id bigint NOT NULL,
    acked_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (client_id, welcome_id)
);

-- MQTT Sessions (MQTT 5.0 §4.1) kept after their connection: subscriptions, the last event_seq
-- handed to the client per conversation, messages in flight; resumed by Clean Start = 0 on any node
-- until expires_at. attached_node names the node a connection currently holds it on.
CREATE TABLE mqtt_sessions (
    client_id     text PRIMARY KEY REFERENCES mqtt_clients (client_id),
    did           text NOT NULL,
    attached_node text,
    expires_at    timestamptz,
    state         jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX mqtt_sessions_expiry ON mqtt_sessions (expires_at) WHERE attached_node IS NULL;

-- Changes Relay subscribers on every node hear about, whichever transport made them (channel
-- relay_events, payload "<kind> <key>"): a Welcome for a client's KeyPackage (w), a client's
-- KeyPackages (k), a DID's client list (u), a conversation's GroupInfo or epoch (i).
CREATE FUNCTION relay_notify_welcome() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('relay_events', 'w ' || k.client_id)
    FROM mqtt_key_packages k WHERE k.key_package_ref = NEW.key_package_ref;
    RETURN NULL;
END $$;
CREATE TRIGGER welcomes_relay_notify AFTER INSERT ON welcomes
    FOR EACH ROW EXECUTE FUNCTION relay_notify_welcome();

CREATE FUNCTION relay_notify_key_package() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('relay_events', 'k ' || NEW.client_id);
    RETURN NULL;
END $$;
CREATE TRIGGER mqtt_key_packages_relay_notify AFTER INSERT ON mqtt_key_packages
    FOR EACH ROW EXECUTE FUNCTION relay_notify_key_package();

CREATE FUNCTION relay_notify_client() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('relay_events', 'u ' || NEW.did);
    RETURN NULL;
END $$;
CREATE TRIGGER mqtt_clients_relay_notify AFTER INSERT ON mqtt_clients
    FOR EACH ROW EXECUTE FUNCTION relay_notify_client();

-- Only when the epoch or the GroupInfo's epoch moves: not on the counters every message updates.
CREATE FUNCTION relay_notify_group_info() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('relay_events', 'i ' || NEW.convo_id);
    RETURN NULL;
END $$;
CREATE TRIGGER convos_relay_notify AFTER UPDATE OF epoch, group_info, group_info_epoch ON convos
    FOR EACH ROW WHEN (OLD.epoch IS DISTINCT FROM NEW.epoch OR OLD.group_info_epoch IS DISTINCT FROM NEW.group_info_epoch)
    EXECUTE FUNCTION relay_notify_group_info();
