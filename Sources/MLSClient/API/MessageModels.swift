/// `blue.catbird.mls.sendMessage`.
public struct SendMessageInput: Codable, Sendable, Equatable {
    public var convoId: String
    /// ULID or UUID; the service deduplicates on it per conversation.
    public var msgId: String
    /// The PrivateMessage (MLSMessage encoding).
    public var ciphertext: XRPCBytes
    public var epoch: Int64
    public var paddedSize: Int?
    public var idempotencyKey: String?

    public init(convoId: String, msgId: String, ciphertext: [UInt8], epoch: Int64, paddedSize: Int? = nil,
                idempotencyKey: String? = nil) {
        self.convoId = convoId
        self.msgId = msgId
        self.ciphertext = XRPCBytes(ciphertext)
        self.epoch = epoch
        self.paddedSize = paddedSize
        self.idempotencyKey = idempotencyKey
    }
}

public struct SendMessageOutput: Codable, Sendable, Equatable {
    public var messageId: String
    public var receivedAt: String
    public var seq: Int64
    public var epoch: Int64
}

/// The `type` filter of getMessages.
public enum MessageTypeFilter: String, Codable, Sendable {
    case app, commit, all
}

/// `blue.catbird.mls.getMessages` output; `cursor` is the `sinceSeq` of the next page.
public struct GetMessagesOutput: Codable, Sendable, Equatable {
    public var messages: [MessageView]
    public var lastSeq: Int64?
    public var cursor: String?
}

/// `blue.catbird.mls.uploadBlob` output.
public struct UploadBlobOutput: Codable, Sendable, Equatable {
    public struct Blob: Codable, Sendable, Equatable {
        public var blobId: String
        public var size: Int64
        public var mimeType: String
    }

    public var blob: Blob
}

/// `blue.catbird.mls.getSubscriptionTicket` output.
public struct SubscriptionTicket: Codable, Sendable, Equatable {
    public var ticket: String
    public var endpoint: String
    public var expiresAt: String
}
