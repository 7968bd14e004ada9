import Basics
import Foundation
import Store

extension DeliveryTransaction {
    /// Queues `event` for every device `recipients` selects, in this transaction: the push is
    /// committed with the change it announces, or not at all (docs/push.md). At most one push per
    /// device and conversation waits: a later event replaces a pending one's. Returns how many
    /// rows were written or replaced. Call it with the conversation's row locked, as every writer
    /// of its messages does, so that the writers of one conversation's pushes take turns.
    @discardableResult
    public func enqueuePushes(_ event: PushEvent, to recipients: PushRecipients) throws(DeliveryStoreError) -> Int {
        try guarded {
            let head: [(any PGBindable)?] = [event.convoID, event.source, event.kind, event.seq, event.epoch, event.messageID,
                                            event.contentID]
            switch recipients {
            case .members(let sender, let joinedBefore):
                return try connection.execute(PushOutboxSQL.enqueueToMembers, head + [sender, joinedBefore])
            case .users(let dids, let sender):
                guard !dids.isEmpty else { return 0 }
                return try connection.execute(PushOutboxSQL.enqueueToUsers, head + [PGArray(dids.map(\.rawValue)), sender])
            case .devices(let devices):
                guard !devices.isEmpty else { return 0 }
                return try connection.execute(PushOutboxSQL.enqueueToDevices,
                                              head + [PGArray(devices.map(\.did.rawValue)), PGArray(devices.map(\.deviceID))])
            }
        }
    }

    /// Records `registration` as its device's one push registration, replacing the device's earlier
    /// one. A token belongs to one device: another device holding it loses it (and its pending
    /// pushes). `tooManyPushDevices` when the user already has `maxDevices` other devices.
    public func registerPushDevice(_ registration: PushDeviceRegistration, maxDevices: Int) throws(DeliveryStoreError) {
        try guarded {
            // Serializes one user's registrations, so that two at once cannot both pass the cap.
            _ = try connection.query("SELECT pg_advisory_xact_lock(hashtextextended('push_devices ' || $1, 0))",
                                     [registration.did])
            let others = try connection.query(
                "SELECT count(*) AS n FROM push_devices WHERE did = $1 AND device_id <> $2",
                [registration.did, registration.deviceID])
            guard try others[0].int64("n") < Int64(maxDevices) else {
                throw DeliveryStoreError.tooManyPushDevices(limit: maxDevices)
            }
            let moved = try connection.query("""
                DELETE FROM push_devices WHERE platform = $1 AND token = $2 AND (did, device_id) <> ($3, $4)
                RETURNING did, device_id
                """, [registration.address.platform.rawValue, registration.address.token, registration.did, registration.deviceID])
            for row in moved {
                try deletePendingPushes(did: try row.string("did"), deviceID: try row.string("device_id"))
            }
            try connection.execute("""
                INSERT INTO push_devices (did, device_id, platform, token, environment, p256dh, auth_secret, device_name)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT (did, device_id) DO UPDATE SET
                    platform = EXCLUDED.platform, token = EXCLUDED.token, environment = EXCLUDED.environment,
                    p256dh = EXCLUDED.p256dh, auth_secret = EXCLUDED.auth_secret, device_name = EXCLUDED.device_name,
                    updated_at = clock_timestamp()
                """, [registration.did, registration.deviceID, registration.address.platform.rawValue, registration.address.token,
                      registration.address.environment.rawValue, registration.address.webPush?.p256dh, registration.address.webPush?.auth,
                      registration.deviceName])
        }
    }

    /// Forgets the device's push registration and its pending pushes; false when it had none.
    @discardableResult
    public func unregisterPushDevice(did: DID, deviceID: String) throws(DeliveryStoreError) -> Bool {
        try guarded {
            let removed = try connection.execute("DELETE FROM push_devices WHERE did = $1 AND device_id = $2", [did, deviceID])
            try deletePendingPushes(did: did.rawValue, deviceID: deviceID)
            return removed > 0
        }
    }

    private func deletePendingPushes(did: String, deviceID: String) throws {
        try connection.execute("DELETE FROM push_outbox WHERE did = $1 AND device_id = $2", [did, deviceID])
    }
}
