import Basics
import Foundation
import Store

/// The delivery service's persistence: conversations, members, messages, commits, key packages,
/// welcomes, pending proposals, idempotency records and the event log, over one `Database`.
///
/// It knows nothing of MLS parsing or HTTP. Callers validate MLS objects first and hand over
/// facts (bytes, DIDs, leaf indices, KeyPackageRefs); the store keeps the tables consistent and
/// serializes every change to a conversation on its `convos` row, so concurrent requests never
/// fork a group: at most one commit per (conversation, epoch), seq dense per conversation.
///
/// Each operation here is one transaction. The same operations exist on `DeliveryTransaction`
/// for composing several (or an idempotency record) into one transaction with `transaction(_:)`
/// or `idempotent(caller:method:key:_:)`. Errors are `DeliveryStoreError`; Store errors arrive
/// as `.database(StoreError)`.
public final class DeliveryStore: Sendable {
    public struct Configuration: Sendable {
        /// Unconsumed, unexpired key packages one DID may store (`tooManyKeyPackages` beyond).
        public var keyPackageLimit: Int
        /// Whether application messages from the epoch before the current one are accepted.
        public var acceptsPreviousEpochMessages: Bool
        /// How long a stored idempotent response is replayed.
        public var idempotencyLifetime: TimeInterval
        /// The NOTIFY channel that announces new events, payload `<convo_id> <event_seq>`.
        public var eventChannel: String
        /// What one sender's stored application messages may cost (`message_quota_charge` each:
        /// ciphertext bytes + 256); `messageQuotaExceeded` beyond.
        public var messageQuotaBytes: Int64
        /// Conversations one DID may have created and still belong to (`tooManyConvos` beyond).
        public var maxConvosPerUser: Int
        /// How many KeyPackages of one owner commits may use per window.
        public var keyPackageUses: KeyPackageUseLimits
        /// Whether messages, commits and Welcomes queue pushes for their recipients' registered
        /// devices (docs/push.md): on when a push platform is configured.
        public var pushEnabled: Bool

        public init(
            keyPackageLimit: Int = 200, acceptsPreviousEpochMessages: Bool = false,
            idempotencyLifetime: TimeInterval = 86_400, eventChannel: String = "convo_events",
            messageQuotaBytes: Int64 = 1 << 30, maxConvosPerUser: Int = 10_000,
            keyPackageUses: KeyPackageUseLimits = KeyPackageUseLimits(), pushEnabled: Bool = false
        ) {
            self.keyPackageLimit = keyPackageLimit
            self.acceptsPreviousEpochMessages = acceptsPreviousEpochMessages
            self.idempotencyLifetime = idempotencyLifetime
            self.eventChannel = eventChannel
            self.messageQuotaBytes = messageQuotaBytes
            self.maxConvosPerUser = maxConvosPerUser
            self.keyPackageUses = keyPackageUses
            self.pushEnabled = pushEnabled
        }
    }

    public let database: Database
    public let configuration: Configuration

    public init(database: Database, configuration: Configuration = Configuration()) {
        self.database = database
        self.configuration = configuration
    }

    /// A conversation's id: the lowercase hex of its MLS group_id.
    public static func convoID(forGroupID groupID: [UInt8]) -> String { Hex.encode(groupID) }

    /// Runs `body` in one READ COMMITTED transaction and commits it if `body` returns. `body` may
    /// run again after a deadlock or serialization failure, so keep side effects other than SQL
    /// out of it. The body's own errors are rethrown as they are; Store errors become
    /// `DeliveryStoreError.database`.
    public func transaction<T>(_ body: (DeliveryTransaction) throws -> T) throws -> T {
        do {
            return try database.transaction { connection in
                try body(DeliveryTransaction(connection: connection, configuration: configuration))
            }
        } catch let error as StoreError {
            throw DeliveryStoreError.database(error)
        }
    }

    /// One transaction whose errors are all DeliveryStoreErrors.
    func run<T>(_ body: (DeliveryTransaction) throws(DeliveryStoreError) -> T) throws(DeliveryStoreError) -> T {
        try guarded {
            try database.transaction { connection in
                try body(DeliveryTransaction(connection: connection, configuration: configuration))
            }
        }
    }
}
