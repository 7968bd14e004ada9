import Basics

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
