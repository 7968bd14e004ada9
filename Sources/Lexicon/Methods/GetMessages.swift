/// `blue.catbird.mls.getMessages` output; `cursor` is the `sinceSeq` of the next page.
public struct GetMessagesOutput: Codable, Sendable, Equatable {
    public var messages: [MessageView]
    public var lastSeq: Int64?
    public var cursor: String?

    public init(messages: [MessageView], lastSeq: Int64? = nil, cursor: String? = nil) {
        self.messages = messages
        self.lastSeq = lastSeq
        self.cursor = cursor
    }
}
