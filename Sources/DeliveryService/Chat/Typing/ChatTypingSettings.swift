/// CHAT_TYPING_*: how often one device's typing events go out in one conversation (docs/chat.md,
/// "Typing").
public struct ChatTypingSettings: Sendable, Equatable {
    /// At most one typing event per device and conversation in this many seconds; calls within it
    /// are folded into the event sent when it ends.
    public var interval: Double = 2
    /// Calls per device and conversation in one interval; past them, 429 `RateLimited`.
    public var burst: Int = 5
    /// How long a typing event lasts (defs `typingEvent`), from the service's clock.
    public static let lifetime: Double = 8

    public init() {}
}
