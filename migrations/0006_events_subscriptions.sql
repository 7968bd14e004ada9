-- Real-time events (getSubscriptionTicket / subscribeConvoEvents).

-- Single-use tickets: a ticket id is remembered until the ticket expires, on every node.
CREATE TABLE subscription_tickets (
    ticket_id  text PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
CREATE INDEX subscription_tickets_expires_at ON subscription_tickets (expires_at);

-- Secrets every node must share (the ticket HMAC key when SUBSCRIPTION_TICKET_KEY is not set),
-- created by the first node to start and read back by the others.
CREATE TABLE service_secrets (
    name       text PRIMARY KEY,
    secret     bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Resuming a subscription looks up every conversation a DID belonged to, including those it left,
-- and the DID's last membership event in each.
CREATE INDEX members_by_did ON members (did, convo_id);
CREATE INDEX events_membership_by_did ON events (convo_id, (payload->>'did'), event_seq)
    WHERE type = 'membershipChangeEvent';
