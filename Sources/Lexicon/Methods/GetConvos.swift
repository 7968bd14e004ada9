import JSON

/// `blue.catbird.mls.getConvos` output; `cursor` continues the list.
public struct GetConvosOutput: Codable, Sendable, Equatable {
    public var conversations: [ConvoView]
    public var cursor: String?

    public init(conversations: [ConvoView], cursor: String? = nil) {
        self.conversations = conversations
        self.cursor = cursor
    }
}

extension GetConvosOutput: JSONObjectCodable {
    public init(json object: JSONObjectReader) throws {
        conversations = try object.decode([ConvoView].self, forKey: CodingKeys.conversations)
        cursor = try object.decodeIfPresent(String.self, forKey: CodingKeys.cursor)
    }

    public func encode(json object: inout JSONObjectWriter) {
        object.encode(conversations, forKey: CodingKeys.conversations)
        object.encodeIfPresent(cursor, forKey: CodingKeys.cursor)
    }
}
