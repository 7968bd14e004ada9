import Basics
import Foundation
import Store

/// A stored MQTT Session (migrations/0012_mqtt_relay.sql): the service's own JSON state, opaque here.
public struct StoredRelaySession: Sendable, Equatable {
    public var clientID: String
    public var did: String
    /// The node whose connection holds the Session now, if any.
    public var attachedNode: String?
    /// Nil while attached; after a disconnect, when the Session ends.
    public var expiresAt: Date?
    public var state: String
}

/// A Welcome waiting for a Relay client: one of its KeyPackages was added by an accepted commit.
public struct RelayWelcome: Sendable, Equatable {
    public var id: Int64
    public var convoID: String
    public var welcome: [UInt8]
}

/// The outcome of binding a client_id at CONNECT.
public enum RelayClientBinding: Sendable, Equatable {
    /// Bound to this DID (the caller's, or another's that bound it first).
    case bound(owner: String)
    /// New, and its DID holds as many client_ids as it may.
    case full
}

/// Where a Session's follow of a conversation may start, read in one statement (one snapshot), so
/// that a removal committed meanwhile is always after the start: the follow then reaches it.
public enum RelayFollowStart: Sendable, Equatable {
    /// A current member: from just after its latest join (the membershipChangeEvent that follows
    /// the commit adding it), or the log's end when the log no longer holds that join.
    case member(after: Int64)
    case notMember
    /// The conversation does not exist (yet).
    case noConversation
}

/// The tables of the MQTT listener's Relay protocol: client_ids bound to DIDs, which client
/// published which KeyPackage, acknowledged Welcomes, and Sessions kept across connections and nodes.
extension DeliveryStore {
    /// Binds `clientID` to `did` unless it is bound already, and notes that it connected now. A new
    /// binding is refused (`.full`) when `did` holds `maxPerDID` already: the count is taken under a
    /// lock on the DID, so concurrent CONNECTs cannot pass it together.
    public func bindRelayClient(_ clientID: String, to did: DID, maxPerDID: Int) throws(DeliveryStoreError) -> RelayClientBinding {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                let connection = transaction.connection
                let existing = try connection.query(
                    "UPDATE mqtt_clients SET last_seen_at = clock_timestamp() WHERE client_id = $1 RETURNING did", [clientID])
                if let row = existing.first { return .bound(owner: try row.string("did")) }
                _ = try connection.query("SELECT pg_advisory_xact_lock(hashtextextended('mqtt_clients ' || $1, 0))", [did])
                let held = try connection.query("SELECT count(*) AS n FROM mqtt_clients WHERE did = $1", [did]).first?.int64("n") ?? 0
                guard held < Int64(maxPerDID) else { return .full }
                _ = try connection.execute(
                    "INSERT INTO mqtt_clients (client_id, did) VALUES ($1, $2) ON CONFLICT (client_id) DO NOTHING", [clientID, did])
                let rows = try connection.query("SELECT did FROM mqtt_clients WHERE client_id = $1", [clientID])
                guard let row = rows.first else { throw DeliveryStoreError.invalidArgument("client binding vanished") }
                return .bound(owner: try row.string("did"))
            }
        }
    }

    /// Unbinds client_ids that last connected before `idleBefore` and have no Session left: their
    /// KeyPackages stay (XRPC serves them) but no longer belong to a Relay client. Returns how many.
    public func purgeIdleRelayClients(idleBefore: Date, limit: Int = 1000) throws(DeliveryStoreError) -> Int {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                let connection = transaction.connection
                let idle = try connection.query("""
                    SELECT client_id FROM mqtt_clients c WHERE last_seen_at < $1
                      AND NOT EXISTS (SELECT 1 FROM mqtt_sessions s WHERE s.client_id = c.client_id)
                    LIMIT $2 FOR UPDATE SKIP LOCKED
                    """, [idleBefore, Int64(limit)]).map { try $0.string("client_id") }
                guard !idle.isEmpty else { return 0 }
                try connection.execute("DELETE FROM mqtt_key_packages WHERE client_id = ANY($1)", [PGArray(idle)])
                try connection.execute("DELETE FROM mqtt_welcome_acks WHERE client_id = ANY($1)", [PGArray(idle)])
                try connection.execute("DELETE FROM mqtt_clients WHERE client_id = ANY($1)", [PGArray(idle)])
                return idle.count
            }
        }
    }

    /// The DID `clientID` is bound to, if any.
    public func relayClientOwner(_ clientID: String) throws(DeliveryStoreError) -> String? {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.query("SELECT did FROM mqtt_clients WHERE client_id = $1", [clientID])
                    .first.map { try $0.string("did") }
            }
        }
    }

    /// The client_ids bound to `did`, oldest first.
    public func relayClients(of did: String) throws(DeliveryStoreError) -> [String] {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.query("SELECT client_id FROM mqtt_clients WHERE did = $1 ORDER BY created_at, client_id",
                                                 [did]).map { try $0.string("client_id") }
            }
        }
    }

    /// Publishes `packages` (validated, all of `clientID`'s owner) for `clientID`, all or none: a
    /// package already published unconsumed by the same owner counts as published.
    public func publishRelayKeyPackages(_ packages: [NewKeyPackage], clientID: String) throws(DeliveryStoreError) {
        try run { transaction throws(DeliveryStoreError) in
            for package in packages {
                _ = try transaction.publishKeyPackage(package)
                try guarded {
                    _ = try transaction.connection.execute("""
                        INSERT INTO mqtt_key_packages (key_package_ref, client_id) VALUES ($1, $2)
                        ON CONFLICT (key_package_ref) DO NOTHING
                        """, [package.ref, clientID])
                }
            }
        }
    }

    /// What `relay/k/{client_id}` hands out, at most what getKeyPackages would: one unconsumed,
    /// unexpired KeyPackage (as published) of each cipher suite the client published, a one-time
    /// package before a last-resort one, the oldest first; by suite.
    public func relayKeyPackages(of clientID: String) throws(DeliveryStoreError) -> [[UInt8]] {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.query("""
                    SELECT DISTINCT ON (p.cipher_suite) p.key_package FROM key_packages p JOIN mqtt_key_packages m USING (key_package_ref)
                    WHERE m.client_id = $1 AND p.consumed_at IS NULL AND p.expires_at > clock_timestamp()
                    ORDER BY p.cipher_suite, p.last_resort, p.created_at, p.key_package_ref
                    """, [clientID]).map { try $0.bytes("key_package") }
            }
        }
    }

    /// Welcomes to `clientID`'s KeyPackages it has not acknowledged, oldest first.
    public func relayWelcomes(for clientID: String, limit: Int = 100) throws(DeliveryStoreError) -> [RelayWelcome] {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.query("""
                    SELECT w.id, w.convo_id, wm.welcome FROM welcomes w
                    JOIN mqtt_key_packages m ON m.key_package_ref = w.key_package_ref
                    JOIN welcome_messages wm ON wm.convo_id = w.convo_id AND wm.id = w.welcome_id
                    WHERE m.client_id = $1
                      AND NOT EXISTS (SELECT 1 FROM mqtt_welcome_acks a WHERE a.client_id = $1 AND a.welcome_id = w.id)
                    ORDER BY w.id LIMIT $2
                    """, [clientID, Int64(limit)]).map { row in
                    RelayWelcome(id: try row.int64("id"), convoID: try row.string("convo_id"), welcome: try row.bytes("welcome"))
                }
            }
        }
    }

    /// `clientID` acknowledged the Welcome: it is not delivered again.
    public func acknowledgeRelayWelcome(_ welcomeID: Int64, clientID: String) throws(DeliveryStoreError) {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                _ = try transaction.connection.execute("""
                    INSERT INTO mqtt_welcome_acks (client_id, welcome_id) VALUES ($1, $2) ON CONFLICT DO NOTHING
                    """, [clientID, welcomeID])
            }
        }
    }

    /// The Welcome `welcomeID` if it is still stored.
    public func relayWelcome(_ welcomeID: Int64) throws(DeliveryStoreError) -> RelayWelcome? {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.query("""
                    SELECT w.id, w.convo_id, wm.welcome FROM welcomes w
                    JOIN welcome_messages wm ON wm.convo_id = w.convo_id AND wm.id = w.welcome_id
                    WHERE w.id = $1
                    """, [welcomeID]).first.map { row in
                    RelayWelcome(id: try row.int64("id"), convoID: try row.string("convo_id"), welcome: try row.bytes("welcome"))
                }
            }
        }
    }

    /// Whether `did` may follow each of the conversations, and from where (`RelayFollowStart`), in
    /// one statement (one round trip, one snapshot); a conversation that does not exist is
    /// `.noConversation`.
    public func relayFollowStarts(convoIDs: [String], did: DID) throws(DeliveryStoreError) -> [String: RelayFollowStart] {
        guard !convoIDs.isEmpty else { return [:] }
        let rows = try guarded {
            try database.query("""
                SELECT c.convo_id,
                       EXISTS (SELECT 1 FROM members m WHERE m.convo_id = c.convo_id AND m.did = $2 AND m.left_at IS NULL) AS member,
                       (SELECT max(e.event_seq) FROM events e
                        WHERE e.convo_id = c.convo_id AND e.type = 'membershipChangeEvent' AND e.payload->>'did' = $2
                          AND e.payload->>'action' = 'joined') AS joined,
                       c.last_event_seq
                FROM convos c WHERE c.convo_id = ANY($1)
                """, [PGArray(convoIDs), did])
        }
        var starts = Dictionary(uniqueKeysWithValues: convoIDs.map { ($0, RelayFollowStart.noConversation) })
        try guarded {
            for row in rows {
                starts[try row.string("convo_id")] = try row.bool("member")
                    ? .member(after: try row.optionalInt64("joined") ?? row.int64("last_event_seq")) : .notMember
            }
        }
        return starts
    }

    /// Which of `convoIDs` `did` is a current member of.
    public func relayMemberships(of did: DID, among convoIDs: [String]) throws(DeliveryStoreError) -> Set<String> {
        guard !convoIDs.isEmpty else { return [] }
        return try run { transaction throws(DeliveryStoreError) in
            try guarded {
                Set(try transaction.connection.query("""
                    SELECT DISTINCT convo_id FROM members WHERE did = $1 AND left_at IS NULL AND convo_id = ANY($2)
                    """, [did, PGArray(convoIDs)]).map { try $0.string("convo_id") })
            }
        }
    }

    /// Whether the conversation stored a message (or commit) with this msgId.
    public func hasMessage(convoID: String, msgID: String) throws(DeliveryStoreError) -> Bool {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                !(try transaction.connection.query("SELECT 1 FROM messages WHERE convo_id = $1 AND msg_id = $2", [convoID, msgID]).isEmpty)
            }
        }
    }

    // MARK: Sessions

    public func relaySession(_ clientID: String) throws(DeliveryStoreError) -> StoredRelaySession? {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.query("""
                    SELECT client_id, did, attached_node, expires_at, state::text AS state FROM mqtt_sessions WHERE client_id = $1
                    """, [clientID]).first.map { row in
                    StoredRelaySession(clientID: try row.string("client_id"), did: try row.string("did"),
                                       attachedNode: try row.optionalString("attached_node"), expiresAt: try row.optionalDate("expires_at"),
                                       state: try row.string("state"))
                }
            }
        }
    }

    /// Marks the Session as held by `node` (creating it empty when absent); an expired Session is
    /// replaced by an empty one. Returns the state to resume (nil: a new Session).
    public func attachRelaySession(_ clientID: String, did: DID, node: String, resume: Bool) throws(DeliveryStoreError) -> String? {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                let existing = try transaction.connection.query("""
                    SELECT state::text AS state, expires_at IS NOT NULL AND expires_at <= clock_timestamp() AS expired
                    FROM mqtt_sessions WHERE client_id = $1 FOR UPDATE
                    """, [clientID]).first
                let state: String? = if let existing, resume, !(try existing.bool("expired")) { try existing.string("state") } else { nil }
                try transaction.connection.execute("""
                    INSERT INTO mqtt_sessions (client_id, did, attached_node, expires_at, state) VALUES ($1, $2, $3, NULL, $4::jsonb)
                    ON CONFLICT (client_id) DO UPDATE SET did = $2, attached_node = $3, expires_at = NULL, state = $4::jsonb
                    """, [clientID, did, node, state ?? "{}"])
                return state
            }
        }
    }

    /// Stores the Session's state; `expiresAt` set detaches it (kept until then), nil keeps it attached.
    /// A Session another node attached meanwhile is left alone.
    public func saveRelaySession(_ clientID: String, node: String, state: String, detachUntil expiresAt: Date?) throws(DeliveryStoreError) {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                _ = try transaction.connection.execute("""
                    UPDATE mqtt_sessions SET state = $3::jsonb, expires_at = $4,
                        attached_node = CASE WHEN $4::timestamptz IS NULL THEN attached_node ELSE NULL END
                    WHERE client_id = $1 AND attached_node = $2
                    """, [clientID, node, state, expiresAt])
            }
        }
    }

    /// Ends the Session (expiry 0, or Clean Start), unless another node attached it meanwhile.
    public func deleteRelaySession(_ clientID: String, node: String) throws(DeliveryStoreError) {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                _ = try transaction.connection.execute("DELETE FROM mqtt_sessions WHERE client_id = $1 AND attached_node = $2", [clientID, node])
            }
        }
    }

    /// Deletes Sessions past their expiry, Sessions a node that stopped left attached, and
    /// acknowledgements of Welcomes that no longer exist.
    public func purgeRelaySessions() throws(DeliveryStoreError) -> Int {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                let expired = try transaction.connection.query(
                    "DELETE FROM mqtt_sessions WHERE attached_node IS NULL AND expires_at <= clock_timestamp() RETURNING 1").count
                try transaction.connection.execute(
                    "DELETE FROM mqtt_welcome_acks a WHERE NOT EXISTS (SELECT 1 FROM welcomes w WHERE w.id = a.welcome_id)")
                return expired
            }
        }
    }
}

extension DeliveryStore {
    /// Marks an existing Session as held by `node` (a takeover on the same node keeps its state).
    public func markRelaySessionAttached(_ clientID: String, did: DID, node: String) throws(DeliveryStoreError) {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                _ = try transaction.connection.execute("""
                    INSERT INTO mqtt_sessions (client_id, did, attached_node) VALUES ($1, $2, $3)
                    ON CONFLICT (client_id) DO UPDATE SET attached_node = $3, expires_at = NULL
                    """, [clientID, did, node])
            }
        }
    }

    /// Announces `payload` on the Relay channel to every node (e.g. a Session taken over).
    public func notifyRelay(_ payload: String) throws(DeliveryStoreError) {
        try run { transaction throws(DeliveryStoreError) in
            try guarded { _ = try transaction.connection.execute("SELECT pg_notify('relay_events', $1)", [payload]) }
        }
    }
}
