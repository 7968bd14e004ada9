import Basics
import Foundation

/// What a message row holds.
public enum MessageKind: String, Sendable, Codable {
    /// An application message (PrivateMessage).
    case app
    /// A commit (PublicMessage), stored by `applyCommit` or `createConvo`.
    case commit
    /// A standalone proposal (PublicMessage) kept until a commit covers it, stored by `addPendingProposal`.
    case proposal
}

/// The content of an application message.
public enum MessageContent: Sendable, Equatable {
    /// The PrivateMessage bytes, stored here.
    case ciphertext([UInt8])
    /// Thin mode: the client stores the ciphertext itself; only its SHA-256 and size are kept.
    case external(sha256: [UInt8], size: Int)
}

/// An application message to store, already checked by the caller (group_id, content type).
public struct NewMessage: Sendable, Equatable {
    public var convoID: String
    /// The client's id (ULID or UUID), the deduplication key within the conversation.
    public var msgID: String
    /// The epoch from the PrivateMessage header.
    public var epoch: Int64
    public var senderDID: DID
    public var content: MessageContent
    public var paddedSize: Int?

    public init(convoID: String, msgID: String, epoch: Int64, senderDID: DID, content: MessageContent,
                paddedSize: Int? = nil) {
        self.convoID = convoID
        self.msgID = msgID
        self.epoch = epoch
        self.senderDID = senderDID
        self.content = content
        self.paddedSize = paddedSize
    }
}

/// The result of `appendMessage`; for a repeated msgID, the first message's values.
public struct AppendedMessage: Sendable, Equatable {
    public var seq: Int64
    public var receivedAt: Date
    public var epoch: Int64
    /// True when the msgID was already stored and nothing new was written.
    public var duplicate: Bool
}

/// A stored message.
public struct MessageRow: Sendable, Equatable {
    public var convoID: String
    public var seq: Int64
    public var msgID: String
    public var epoch: Int64
    public var kind: MessageKind
    public var senderDID: String
    /// nil in thin mode.
    public var ciphertext: [UInt8]?
    /// The SHA-256 a thin-mode client declared.
    public var contentHash: [UInt8]?
    public var size: Int
    public var paddedSize: Int?
    public var createdAt: Date
}

/// A page of `messages`: rows after `sinceSeq` in seq order, and the conversation's newest seq.
public struct MessagePage: Sendable, Equatable {
    public var messages: [MessageRow]
    public var lastSeq: Int64
}

/// Filters for `messages`.
public struct MessageQuery: Sendable, Equatable {
    public var sinceSeq: Int64
    public var limit: Int
    public var fromEpoch: Int64?
    public var toEpoch: Int64?
    /// nil for both kinds.
    public var kind: MessageKind?

    public init(sinceSeq: Int64 = 0, limit: Int = 50, fromEpoch: Int64? = nil, toEpoch: Int64? = nil,
                kind: MessageKind? = nil) {
        self.sinceSeq = sinceSeq
        self.limit = limit
        self.fromEpoch = fromEpoch
        self.toEpoch = toEpoch
        self.kind = kind
    }
}
