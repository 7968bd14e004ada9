import Foundation
import Store

/// One event of a conversation's log with the message a messageEvent points at.
public struct LoggedEvent: Sendable, Equatable {
    public var event: ConvoEvent
    /// The stored message of a messageEvent (nil for other events).
    public var message: MessageRow?
}

extension DeliveryStore {
    /// The conversation's events after `afterSeq`, oldest first, each messageEvent with its message:
    /// one statement, for the event stream's readers (subscribeConvoEvents, MQTT) that need both.
    public func eventsWithMessages(convoID: String, afterSeq: Int64, limit: Int) throws(DeliveryStoreError) -> [LoggedEvent] {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                let rows = try transaction.connection.query(EventLogSQL.eventsWithMessages,
                                                            [convoID, afterSeq, Int64(limit)])
                return try rows.map { row in
                    LoggedEvent(event: try ConvoEvent(convoID: convoID, row: row),
                                message: try row.isNull("seq") ? nil : MessageRow(row: row))
                }
            }
        }
    }
}
