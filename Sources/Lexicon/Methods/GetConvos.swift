/// `blue.catbird.mls.getConvos` output; `cursor` continues the list.
public struct GetConvosOutput: Codable, Sendable, Equatable {
    public var conversations: [ConvoView]
    public var cursor: String?

    public init(conversations: [ConvoView], cursor: String? = nil) {
        self.conversations = conversations
        self.cursor = cursor
    }
}
