import Foundation

/// An entry of a conversation's event log, as subscribers receive it.
public struct ConvoEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// A message (application, commit or proposal) was stored: payload `{seq, msgId, epoch, sender,
        /// messageType}`. The message row is the event (`EventLogSQL`).
        case messageEvent
        /// A DID joined, left or was removed: payload `{did, action, epoch}`.
        case membershipChangeEvent
        /// A commit moved the group to a new epoch: payload `{epoch, commitSeq}`.
        case epochAdvanced
    }

    public var convoID: String
    /// Dense per conversation, starting at 1.
    public var seq: Int64
    public var kind: Kind
    /// The payload as JSON text.
    public var payload: String
    public var createdAt: Date

    /// A messageEvent's payload: which message was stored. Built by `EventLogSQL`, read by the
    /// service's event stream.
    public struct MessagePayload: Codable, Sendable, Equatable {
        public var seq: Int64
        public var msgId: String
        public var epoch: Int64
        public var sender: String
        public var messageType: String
    }

    /// An epochAdvanced payload: the new epoch and the seq of the commit that made it (absent in
    /// events written before it was recorded).
    public struct EpochPayload: Codable, Sendable, Equatable {
        public var epoch: Int64
        public var commitSeq: Int64?
    }
}

/// An event about to be appended: its kind and JSON payload. Never a messageEvent: a message is
/// its own event.
struct PendingEvent {
    var kind: ConvoEvent.Kind
    var payload: String

    static func membership(_ change: MembershipChange) -> PendingEvent {
        PendingEvent(kind: .membershipChangeEvent, payload: json(change))
    }

    static func epochAdvanced(epoch: Int64, commitSeq: Int64) -> PendingEvent {
        PendingEvent(kind: .epochAdvanced, payload: json(ConvoEvent.EpochPayload(epoch: epoch, commitSeq: commitSeq)))
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of strings and integers cannot fail.
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
