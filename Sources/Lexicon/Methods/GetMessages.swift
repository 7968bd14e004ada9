import JSON

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

extension GetMessagesOutput: JSONObjectCodable {
    public init(json object: JSONObjectReader) throws {
        messages = try object.decode([MessageView].self, forKey: CodingKeys.messages)
        lastSeq = try object.decodeIfPresent(Int64.self, forKey: CodingKeys.lastSeq)
        cursor = try object.decodeIfPresent(String.self, forKey: CodingKeys.cursor)
    }

    public func encode(json object: inout JSONObjectWriter) {
        object.encode(messages, forKey: CodingKeys.messages)
        object.encodeIfPresent(lastSeq, forKey: CodingKeys.lastSeq)
        object.encodeIfPresent(cursor, forKey: CodingKeys.cursor)
    }
}
