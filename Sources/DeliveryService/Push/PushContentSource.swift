import DeliveryStore

/// Reads the stored bytes pushes of one outbox `source` may carry (the PrivateMessage, commit or
/// Welcome), at delivery time: the outbox names its content, and never holds a copy. Another
/// registry (the chat contract) adds its own source beside the `mls` one.
public protocol PushContentSource: Sendable {
    var source: String { get }
    /// By push id: the bytes of each of `pushes` that is still stored and at most `maxBytes` long.
    func contents(of pushes: [ClaimedPush], maxBytes: Int) throws -> [Int64: [UInt8]]
}

/// This service's messages, commits and Welcomes.
struct MLSPushContent: PushContentSource {
    let store: DeliveryStore
    var source: String { PushEvent.mlsSource }

    func contents(of pushes: [ClaimedPush], maxBytes: Int) throws -> [Int64: [UInt8]] {
        try store.mlsPushContents(pushes, maxBytes: maxBytes)
    }
}

/// The chat contract's application messages (docs/chat.md, "Push"): the PrivateMessage of the entry.
struct ChatPushContent: PushContentSource {
    let store: DeliveryStore
    var source: String { PushEvent.chatSource }

    func contents(of pushes: [ClaimedPush], maxBytes: Int) throws -> [Int64: [UInt8]] {
        try store.chatPushContents(pushes, maxBytes: maxBytes)
    }
}
