import ChatProtocol
import Foundation
import Store

/// The chat contract's operations on one transaction (docs/chat.md). Like `DeliveryTransaction`,
/// each operation locks the conversation's row (or the device's) before it reads what it will
/// change and checks every precondition before its first write, so a refusal (`ChatRefusal`)
/// leaves nothing behind. Events are collected and written last (`ChatEventBuffer`), so that the
/// event head's lock is held only for the end of the transaction.
public struct ChatTransaction {
    public let connection: PGConnection
    let events: ChatEventBuffer
    /// The transaction's one time, for every row it writes.
    public let now: Date
    /// Whether a push platform is configured: the outbox is written only then (docs/push.md).
    let pushEnabled: Bool

    init(connection: PGConnection, now: Date, pushEnabled: Bool = false) {
        self.connection = connection
        self.now = now
        self.pushEnabled = pushEnabled
        events = ChatEventBuffer()
    }
}

extension DeliveryStore {
    /// Runs `body` in one READ COMMITTED transaction with the chat tables; its events are written
    /// and announced at the end. A `ChatRefusal` rolls back and is rethrown as it is; Store errors
    /// become `DeliveryStoreError.database`.
    public func chat<T>(_ body: (ChatTransaction) throws -> T) throws -> T {
        do {
            return try database.transaction { connection in
                let transaction = ChatTransaction(connection: connection, now: Date(), pushEnabled: configuration.pushEnabled)
                let result = try body(transaction)
                try transaction.flushEvents()
                return result
            }
        } catch let error as StoreError {
            throw DeliveryStoreError.database(error)
        }
    }
}

extension PGRow {
    func chatUUID(_ column: String) throws -> ChatUUID {
        let bytes = try self.bytes(column)
        guard let uuid = ChatUUID(bytes: bytes) else { throw StoreError.decoding("\(column) is not a UUIDv4") }
        return uuid
    }

    func optionalChatUUID(_ column: String) throws -> ChatUUID? {
        guard let bytes = try optionalBytes(column) else { return nil }
        guard let uuid = ChatUUID(bytes: bytes) else { throw StoreError.decoding("\(column) is not a UUIDv4") }
        return uuid
    }
}

extension ChatUUID: PGBindable {
    public var pgBinding: PGBinding { bytes.pgBinding }
}
