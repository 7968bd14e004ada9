import Basics
import Foundation
import Store

/// The outbox's delivery side (docs/push.md): workers on any number of nodes claim due rows with
/// SKIP LOCKED and a lease, deliver them, and settle them.
extension DeliveryStore {
    /// What one claim returned.
    public struct PushClaim: Sendable, Equatable {
        public var pushes: [ClaimedPush]
        /// Due rows dropped because their device holds a live subscription covering the conversation.
        public var skippedLive: Int
    }

    /// Up to `limit` due pushes, leased to `node` for `leaseSeconds`.
    public func claimPushes(node: String, limit: Int, leaseSeconds: Double) throws(DeliveryStoreError) -> PushClaim {
        try guarded {
            let rows = try database.query(PushOutboxSQL.claim, [node, Int64(limit), leaseSeconds])
            var claim = PushClaim(pushes: [], skippedLive: 0)
            for row in rows {
                guard !(try row.isNull("id")) else {
                    claim.skippedLive = Int(try row.int64("live"))
                    continue
                }
                claim.pushes.append(try ClaimedPush(row: row))
            }
            return claim
        }
    }

    /// Applies the workers' verdicts for rows `node` claimed; returns how many rows went and how
    /// many stay for another delivery.
    @discardableResult
    public func settlePushes(_ settlements: [PushSettlement], node: String) throws(DeliveryStoreError) -> (removed: Int, kept: Int) {
        guard !settlements.isEmpty else { return (0, 0) }
        return try guarded {
            let rows = try database.transaction { connection in
                try connection.query(PushOutboxSQL.settle, [
                    PGArray(settlements.map(\.id)), PGArray(settlements.map(\.revision)),
                    PGArray(settlements.map(\.verdict.rawValue)), PGArray(settlements.map(\.delay)), node,
                ])
            }
            return (Int(try rows[0].int64("removed")), Int(try rows[0].int64("released")))
        }
    }

    /// The push service said `token` is no longer valid (APNs 410 or BadDeviceToken, FCM
    /// UNREGISTERED, Web Push 404 or 410): the device's registration goes with its pending pushes,
    /// unless it registered another token meanwhile. True when it went.
    @discardableResult
    public func removeInvalidPushToken(did: String, deviceID: String, token: String) throws(DeliveryStoreError) -> Bool {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                let removed = try transaction.connection.execute(
                    "DELETE FROM push_devices WHERE did = $1 AND device_id = $2 AND token = $3", [did, deviceID, token])
                guard removed > 0 else { return false }
                try transaction.connection.execute("DELETE FROM push_outbox WHERE did = $1 AND device_id = $2", [did, deviceID])
                return true
            }
        }
    }

    /// The outbox's depth and the age of its oldest event, for `/metrics`.
    public func pushOutboxStats() throws(DeliveryStoreError) -> (depth: Int, oldestAgeSeconds: Double) {
        try guarded {
            let rows = try database.query("""
                SELECT count(*) AS depth,
                       coalesce(extract(epoch FROM clock_timestamp() - min(enqueued_at)), 0)::float8 AS age
                FROM push_outbox
                """)
            return (Int(try rows[0].int64("depth")), try rows[0].double("age"))
        }
    }

    /// The push registration of `did#deviceID`, if any.
    public func pushDevice(did: DID, deviceID: String) throws(DeliveryStoreError) -> PushTarget? {
        try guarded {
            let rows = try database.query("""
                SELECT did, device_id, platform, token, environment, p256dh, auth_secret FROM push_devices
                WHERE did = $1 AND device_id = $2
                """, [did, deviceID])
            return try rows.first.map(PushTarget.init(row:))
        }
    }

    /// Registers or replaces a device's push registration in a transaction of its own
    /// (`DeliveryTransaction.registerPushDevice`).
    public func registerPushDevice(_ registration: PushDeviceRegistration, maxDevices: Int) throws(DeliveryStoreError) {
        try run { transaction throws(DeliveryStoreError) in try transaction.registerPushDevice(registration, maxDevices: maxDevices) }
    }

    /// `DeliveryTransaction.unregisterPushDevice` in a transaction of its own.
    @discardableResult
    public func unregisterPushDevice(did: DID, deviceID: String) throws(DeliveryStoreError) -> Bool {
        try run { transaction throws(DeliveryStoreError) in try transaction.unregisterPushDevice(did: did, deviceID: deviceID) }
    }
}

extension ClaimedPush {
    init(row: PGRow) throws {
        let event = PushEvent(source: try row.string("source"), kind: try row.string("kind"), convoID: try row.string("convo_id"),
                              seq: try row.optionalInt64("seq"), epoch: try row.optionalInt64("epoch"),
                              messageID: try row.optionalString("msg_id"), contentID: try row.optionalInt64("content_id"))
        self.init(id: try row.int64("id"), revision: try row.int64("revision"), event: event,
                  target: try row.isNull("platform") ? nil : try PushTarget(row: row),
                  attempts: try row.int("attempts"), enqueuedAt: try row.date("enqueued_at"))
    }
}

extension PushTarget {
    init(row: PGRow) throws {
        guard let platform = PushPlatform(rawValue: try row.string("platform")),
              let environment = PushEnvironment(rawValue: try row.string("environment")) else {
            throw StoreError.decoding("unknown push platform or environment")
        }
        let keys: WebPushKeys? = switch (try row.optionalBytes("p256dh"), try row.optionalBytes("auth_secret")) {
        case let (p256dh?, auth?): WebPushKeys(p256dh: p256dh, auth: auth)
        default: nil
        }
        self.init(did: try row.string("did"), deviceID: try row.string("device_id"),
                  address: PushAddress(platform: platform, token: try row.string("token"), environment: environment, webPush: keys))
    }
}

extension DeliveryStore {
    /// The stored bytes of the `mls` source's claimed pushes, by push id: the message or commit
    /// (`messages` by conversation and seq) or the Welcome (`welcome_messages` by id), when it is at
    /// most `maxBytes` (no platform carries more) and still stored. One statement.
    public func mlsPushContents(_ pushes: [ClaimedPush], maxBytes: Int) throws(DeliveryStoreError) -> [Int64: [UInt8]] {
        let wanted = pushes.filter { $0.event.source == PushEvent.mlsSource }
        guard !wanted.isEmpty else { return [:] }
        return try guarded {
            let rows = try database.query("""
                SELECT i.id, coalesce(m.ciphertext, w.welcome) AS content
                FROM unnest($1::int8[], $2::text[], $3::int8[], $4::int8[]) AS i(id, convo_id, seq, content_id)
                LEFT JOIN messages m ON i.seq IS NOT NULL AND m.convo_id = i.convo_id AND m.seq = i.seq
                                    AND octet_length(m.ciphertext) <= $5
                LEFT JOIN welcome_messages w ON i.content_id IS NOT NULL AND w.convo_id = i.convo_id AND w.id = i.content_id
                                            AND octet_length(w.welcome) <= $5
                """, [PGArray(wanted.map(\.id)), PGArray(wanted.map(\.event.convoID)), PGArray(wanted.map(\.event.seq)),
                      PGArray(wanted.map(\.event.contentID)), Int32(clamping: maxBytes)])
            var contents: [Int64: [UInt8]] = [:]
            for row in rows {
                if let bytes = try row.optionalBytes("content") { contents[try row.int64("id")] = bytes }
            }
            return contents
        }
    }
}

/// Which devices hold a live subscription, on every node (`push_presence`): each node writes the
/// rows of its own followers and renews them while it runs.
extension DeliveryStore {
    /// One change to a node's presence rows.
    public enum PresenceChange: Sendable, Equatable {
        /// Follower `follower` of `did#deviceID` covers `convoID` (`*`: all of the DID's conversations).
        case covers(follower: Int64, did: String, deviceID: String, convoID: String)
        /// It no longer covers `convoID`.
        case uncovers(follower: Int64, convoID: String)
        /// It is gone.
        case ends(follower: Int64)
    }

    /// Applies `changes` in order, in one transaction; the rows live `lifetime` seconds unless renewed.
    public func updatePresence(_ changes: [PresenceChange], node: String, lifetime: Double) throws(DeliveryStoreError) {
        guard !changes.isEmpty else { return }
        let statements = changes.map { change -> PGStatement in
            switch change {
            case let .covers(follower, did, deviceID, convoID):
                PGStatement("""
                    INSERT INTO push_presence (node, follower, convo_id, did, device_id, expires_at)
                    VALUES ($1, $2, $3, $4, $5, clock_timestamp() + make_interval(secs => $6))
                    ON CONFLICT (node, follower, convo_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
                    """, [node, follower, convoID, did, deviceID, lifetime])
            case let .uncovers(follower, convoID):
                PGStatement("DELETE FROM push_presence WHERE node = $1 AND follower = $2 AND convo_id = $3", [node, follower, convoID])
            case let .ends(follower):
                PGStatement("DELETE FROM push_presence WHERE node = $1 AND follower = $2", [node, follower])
            }
        }
        try guarded { _ = try database.pipelinedTransaction(statements) }
    }

    /// Renews this node's rows for `lifetime` seconds and deletes every node's lapsed ones.
    public func renewPresence(node: String, lifetime: Double) throws(DeliveryStoreError) {
        try guarded {
            _ = try database.pipelinedTransaction([
                PGStatement("UPDATE push_presence SET expires_at = clock_timestamp() + make_interval(secs => $2) WHERE node = $1",
                            [node, lifetime]),
                PGStatement("DELETE FROM push_presence WHERE expires_at < clock_timestamp()"),
            ])
        }
    }

    /// Deletes this node's rows (it is stopping).
    public func clearPresence(node: String) throws(DeliveryStoreError) {
        try guarded { _ = try database.execute("DELETE FROM push_presence WHERE node = $1", [node]) }
    }
}
