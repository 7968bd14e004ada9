import Basics

/// `blue.catbird.mls.sendMessage` input: the PrivateMessage in `ciphertext`, or in thin mode its
/// `hash` and `size` (exactly one of the two).
public struct SendMessageInput: Codable, Sendable, Equatable {
    public var convoId: String
    /// ULID or UUID; the service deduplicates on it per conversation.
    public var msgId: String
    /// The PrivateMessage (MLSMessage encoding).
    public var ciphertext: ATBytes?
    /// Thin mode: hex SHA-256 of the ciphertext.
    public var hash: String?
    /// Thin mode: the ciphertext's size in bytes.
    public var size: Int?
    public var epoch: Int64
    public var paddedSize: Int?
    public var idempotencyKey: String?
    /// Blob ids (uploadBlob) of this conversation the message refers to.
    public var attachments: [String]?

    public init(
        convoId: String, msgId: String, ciphertext: [UInt8]? = nil, hash: String? = nil, size: Int? = nil,
        epoch: Int64, paddedSize: Int? = nil, idempotencyKey: String? = nil, attachments: [String]? = nil
    ) {
        self.convoId = convoId
        self.msgId = msgId
        self.ciphertext = ciphertext.map(ATBytes.init)
        self.hash = hash
        self.size = size
        self.epoch = epoch
        self.paddedSize = paddedSize
        self.idempotencyKey = idempotencyKey
        self.attachments = attachments
    }
}

/// `blue.catbird.mls.sendMessage` output.
public struct SendMessageOutput: Codable, Sendable, Equatable {
    public var messageId: String
    public var receivedAt: String
    public var seq: Int64
    public var epoch: Int64
    /// Thin mode: when the service ordered the message (equal to receivedAt).
    public var serverTime: String?
    /// Thin mode: every current member except the sender, with its storage.
    public var recipients: [RecipientView]?

    public init(
        messageId: String, receivedAt: String, seq: Int64, epoch: Int64, serverTime: String? = nil,
        recipients: [RecipientView]? = nil
    ) {
        self.messageId = messageId
        self.receivedAt = receivedAt
        self.seq = seq
        self.epoch = epoch
        self.serverTime = serverTime
        self.recipients = recipients
    }
}
