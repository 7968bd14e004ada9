import Basics
import Foundation

/// What one outbox row announces (docs/push.md): never bytes, only where to read them at delivery
/// time. The worker turns it into each platform's payload; nothing here names the sender or holds
/// plaintext.
public struct PushEvent: Sendable, Equatable {
    /// Which reader finds the content: `mls` for this service's messages and Welcomes; another
    /// registry (the chat contract) names its own.
    public var source: String
    /// The payload's `type`: `mlsMessage`, `mlsCommit`, `mlsWelcome`, or the source's own.
    public var kind: String
    public var convoID: String
    public var seq: Int64?
    public var epoch: Int64?
    public var messageID: String?
    /// A source's own key for the content (the `mls` source: a Welcome's `welcome_messages.id`).
    public var contentID: Int64?

    public init(source: String = PushEvent.mlsSource, kind: String, convoID: String, seq: Int64? = nil, epoch: Int64? = nil,
                messageID: String? = nil, contentID: Int64? = nil) {
        self.source = source
        self.kind = kind
        self.convoID = convoID
        self.seq = seq
        self.epoch = epoch
        self.messageID = messageID
        self.contentID = contentID
    }

    public static let mlsSource = "mls"
    /// The chat contract's entries: content is `chat_entries` (conversation, seq), the conversation
    /// id its UUID text (docs/chat.md, "Push").
    public static let chatSource = "chat"
    /// An application message (a PrivateMessage): content is `messages` (convo, seq).
    public static let messageKind = "mlsMessage"
    /// A commit: content is `messages` (convo, seq).
    public static let commitKind = "mlsCommit"
    /// A Welcome: content is `welcome_messages` (convo, contentID).
    public static let welcomeKind = "mlsWelcome"
}

/// Whose devices an event is pushed to. Every form leaves out devices without a push registration.
public enum PushRecipients: Sendable, Equatable {
    /// Every device of every current member of the event's conversation except `sender`'s (whose
    /// own devices are never pushed); with `joinedBefore`, only members who joined in an earlier
    /// epoch (a commit is not pushed to the members it adds: they get its Welcome).
    case members(except: DID, joinedBefore: Int64? = nil)
    /// Every device of these users (a Welcome's recipients), except `sender`'s.
    case users([DID], except: DID)
    /// These devices (`did`, `deviceID`) exactly: a registry with its own device-level membership.
    case devices([(did: DID, deviceID: String)])

    public static func == (lhs: PushRecipients, rhs: PushRecipients) -> Bool {
        switch (lhs, rhs) {
        case let (.members(a, b), .members(c, d)): a == c && b == d
        case let (.users(a, b), .users(c, d)): a == c && b == d
        case let (.devices(a), .devices(b)): a.map(\.did) == b.map(\.did) && a.map(\.deviceID) == b.map(\.deviceID)
        default: false
        }
    }
}

/// An outbox row a worker claimed: deliver it, then settle it with the revision it was claimed at.
public struct ClaimedPush: Sendable, Equatable {
    public var id: Int64
    public var revision: Int64
    public var event: PushEvent
    /// The device as registered now; nil when it was unregistered since (the row is dropped).
    public var target: PushTarget?
    /// Including this one.
    public var attempts: Int
    public var enqueuedAt: Date
}

/// What became of a claimed push (`DeliveryStore.settlePushes`).
public struct PushSettlement: Sendable, Equatable {
    public enum Verdict: String, Sendable {
        /// Delivered (2xx): the row goes, unless a newer event replaced it meanwhile.
        case delivered
        /// Given up (deadline, a permanent refusal, the device or content gone): the row goes likewise.
        case dropped
        /// Again after `delay` seconds.
        case retry
    }

    public var id: Int64
    public var revision: Int64
    public var verdict: Verdict
    public var delay: Double

    public init(id: Int64, revision: Int64, verdict: Verdict, delay: Double = 0) {
        self.id = id
        self.revision = revision
        self.verdict = verdict
        self.delay = delay
    }
}
