import Basics
import Foundation
import Store

/// A stored Welcome for one recipient.
public struct WelcomeRow: Sendable, Equatable {
    public var convoID: String
    public var recipientDID: String
    public var id: Int64
    public var welcome: [UInt8]
    public var keyPackageRef: [UInt8]?
    /// The epoch the Welcome admits to.
    public var epoch: Int64
    public var createdAt: Date
}

extension DeliveryTransaction {
    /// The newest Welcome for `recipient` that is neither confirmed nor reported failed; fetching
    /// does not consume it. `welcomeStale` if there is one but the recipient is no longer a
    /// member (removed since), `welcomeNotFound` if there is none.
    public func welcome(convoID: String, recipient: DID) throws(DeliveryStoreError) -> WelcomeRow {
        try guarded {
            let rows = try connection.query("""
                SELECT w.convo_id, w.recipient_did, w.id, m.welcome, w.key_package_ref, w.epoch, w.created_at
                FROM welcomes w JOIN welcome_messages m ON m.convo_id = w.convo_id AND m.id = w.welcome_id
                WHERE w.convo_id = $1 AND w.recipient_did = $2 AND w.confirmed_at IS NULL AND w.failed_at IS NULL
                ORDER BY w.id DESC LIMIT 1
                """, [convoID, recipient])
            guard let row = rows.first else { throw DeliveryStoreError.welcomeNotFound }
            guard try isMember(convoID: convoID, did: recipient) else { throw DeliveryStoreError.welcomeStale }
            return WelcomeRow(convoID: try row.string("convo_id"), recipientDID: try row.string("recipient_did"),
                              id: try row.int64("id"), welcome: try row.bytes("welcome"),
                              keyPackageRef: try row.optionalBytes("key_package_ref"), epoch: try row.int64("epoch"),
                              createdAt: try row.date("created_at"))
        }
    }

    /// Marks every open Welcome of `recipient` in the conversation as confirmed (`success`) or
    /// failed with `errorDetails`. Returns false if there was none open (e.g. a repeated confirm).
    @discardableResult
    public func confirmWelcome(convoID: String, recipient: DID, success: Bool,
                               errorDetails: String? = nil) throws(DeliveryStoreError) -> Bool {
        try guarded {
            let changed = try connection.execute("""
                UPDATE welcomes
                SET confirmed_at = CASE WHEN $3 THEN clock_timestamp() END,
                    failed_at = CASE WHEN $3 THEN NULL ELSE clock_timestamp() END,
                    error_details = CASE WHEN $3 THEN NULL ELSE $4 END
                WHERE convo_id = $1 AND recipient_did = $2 AND confirmed_at IS NULL AND failed_at IS NULL
                """, [convoID, recipient, success, errorDetails])
            return changed > 0
        }
    }

    /// Stores each Welcome once for `epoch`, with one row per recipient pointing to it, and queues
    /// a push for the recipients' devices (not `sender`'s).
    func storeWelcomes(_ convoID: String, _ welcomes: [WelcomeDelivery], epoch: Int64, sender: DID) throws {
        for delivery in welcomes where !delivery.recipients.isEmpty {
            let stored = try connection.query("""
                INSERT INTO welcome_messages (convo_id, epoch, welcome) VALUES ($1, $2, $3) RETURNING id
                """, [convoID, epoch, delivery.welcome])
            let welcomeID = try stored[0].int64("id")
            try connection.execute("""
                INSERT INTO welcomes (convo_id, recipient_did, welcome_id, key_package_ref, epoch)
                SELECT $1, r.recipient, $2, r.ref, $3
                FROM unnest($4::text[], $5::bytea[]) AS r(recipient, ref)
                """, [convoID, welcomeID, epoch, PGArray(delivery.recipients.map(\.did)),
                      PGArray(delivery.recipients.map(\.keyPackageRef))])
            if configuration.pushEnabled {
                // Recipients were checked to be DIDs of the group's members (`checkRecipients`).
                let recipients = Set(delivery.recipients.map(\.did)).sorted().compactMap { try? DID($0) }
                try enqueuePushes(PushEvent(kind: PushEvent.welcomeKind, convoID: convoID, epoch: epoch, contentID: welcomeID),
                                  to: .users(recipients, except: sender))
            }
        }
    }
}
