import Basics
import JSON

/// `blue.catbird.mls.defs#messageView`. `ciphertext` is absent for a message stored in thin mode
/// (API.md, "Thin delivery-service mode"), which carries `contentHash` and `size` instead.
public struct MessageView: Codable, Sendable, Equatable {
    public var id: String
    public var convoId: String
    /// DID.
    public var sender: String
    public var ciphertext: ATBytes?
    public var epoch: Int64
    public var seq: Int64
    public var createdAt: String
    /// `app`, `commit` or `proposal`.
    public var messageType: String
    /// Thin mode: the declared SHA-256 of the ciphertext, lowercase hex.
    public var contentHash: String?
    /// Thin mode: the declared size of the ciphertext.
    public var size: Int?

    public init(
        id: String, convoId: String, sender: String, ciphertext: [UInt8]? = nil, epoch: Int64, seq: Int64,
        createdAt: String, messageType: String, contentHash: String? = nil, size: Int? = nil
    ) {
        self.id = id
        self.convoId = convoId
        self.sender = sender
        self.ciphertext = ciphertext.map(ATBytes.init)
        self.epoch = epoch
        self.seq = seq
        self.createdAt = createdAt
        self.messageType = messageType
        self.contentHash = contentHash
        self.size = size
    }
}

// Read and written directly (JSONObjectCodable): getMessages answers up to 100 of them at a time.
extension MessageView: JSONObjectCodable {
    public init(json object: JSONObjectReader) throws {
        id = try object.decode(String.self, forKey: CodingKeys.id)
        convoId = try object.decode(String.self, forKey: CodingKeys.convoId)
        sender = try object.decode(String.self, forKey: CodingKeys.sender)
        ciphertext = try object.decodeIfPresent(ATBytes.self, forKey: CodingKeys.ciphertext)
        epoch = try object.decode(Int64.self, forKey: CodingKeys.epoch)
        seq = try object.decode(Int64.self, forKey: CodingKeys.seq)
        createdAt = try object.decode(String.self, forKey: CodingKeys.createdAt)
        messageType = try object.decode(String.self, forKey: CodingKeys.messageType)
        contentHash = try object.decodeIfPresent(String.self, forKey: CodingKeys.contentHash)
        size = try object.decodeIfPresent(Int.self, forKey: CodingKeys.size)
    }

    public func encode(json object: inout JSONObjectWriter) {
        object.encode(id, forKey: CodingKeys.id)
        object.encode(convoId, forKey: CodingKeys.convoId)
        object.encode(sender, forKey: CodingKeys.sender)
        object.encodeIfPresent(ciphertext, forKey: CodingKeys.ciphertext)
        object.encode(epoch, forKey: CodingKeys.epoch)
        object.encode(seq, forKey: CodingKeys.seq)
        object.encode(createdAt, forKey: CodingKeys.createdAt)
        object.encode(messageType, forKey: CodingKeys.messageType)
        object.encodeIfPresent(contentHash, forKey: CodingKeys.contentHash)
        object.encodeIfPresent(size, forKey: CodingKeys.size)
    }
}
