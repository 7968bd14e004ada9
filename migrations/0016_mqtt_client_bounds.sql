-- The MQTT listener's bounds (docs/SECURITY.md, "The MQTT listener"): a DID binds a bounded number
-- of client_ids (MQTT_MAX_CLIENTS_PER_DID, checked when binding), and one that has not connected for
-- MQTT_CLIENT_IDLE_DAYS and has no Session left is unbound, so relay/u/{did} stays a short list.
ALTER TABLE mqtt_clients ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT clock_timestamp();
CREATE INDEX mqtt_clients_idle ON mqtt_clients (last_seen_at);

-- An unbound client_id leaves its DID's list: relay/u/{did} subscribers on every node hear of it.
CREATE FUNCTION relay_notify_client_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('relay_events', 'u ' || OLD.did);
    RETURN NULL;
END $$;
CREATE TRIGGER mqtt_clients_relay_notify_gone AFTER DELETE ON mqtt_clients
    FOR EACH ROW EXECUTE FUNCTION relay_notify_client_gone();
