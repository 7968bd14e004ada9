import Basics
import JSON

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

// Read and written directly (JSONObjectCodable): every message goes through both, on the client and
// on the service. Members in declaration order, as the synthesized Codable conformance reads them.
extension SendMessageInput: JSONObjectCodable {
    public init(json object: JSONObjectReader) throws {
        convoId = try object.decode(String.self, forKey: CodingKeys.convoId)
        msgId = try object.decode(String.self, forKey: CodingKeys.msgId)
        ciphertext = try object.decodeIfPresent(ATBytes.self, forKey: CodingKeys.ciphertext)
        hash = try object.decodeIfPresent(String.self, forKey: CodingKeys.hash)
        size = try object.decodeIfPresent(Int.self, forKey: CodingKeys.size)
        epoch = try object.decode(Int64.self, forKey: CodingKeys.epoch)
        paddedSize = try object.decodeIfPresent(Int.self, forKey: CodingKeys.paddedSize)
        idempotencyKey = try object.decodeIfPresent(String.self, forKey: CodingKeys.idempotencyKey)
        attachments = try object.decodeIfPresent([String].self, forKey: CodingKeys.attachments)
    }

    public func encode(json object: inout JSONObjectWriter) {
        object.encode(convoId, forKey: CodingKeys.convoId)
        object.encode(msgId, forKey: CodingKeys.msgId)
        object.encodeIfPresent(ciphertext, forKey: CodingKeys.ciphertext)
        object.encodeIfPresent(hash, forKey: CodingKeys.hash)
        object.encodeIfPresent(size, forKey: CodingKeys.size)
        object.encode(epoch, forKey: CodingKeys.epoch)
        object.encodeIfPresent(paddedSize, forKey: CodingKeys.paddedSize)
        object.encodeIfPresent(idempotencyKey, forKey: CodingKeys.idempotencyKey)
        object.encodeIfPresent(attachments, forKey: CodingKeys.attachments)
    }
}

extension SendMessageOutput: JSONObjectCodable {
    public init(json object: JSONObjectReader) throws {
        messageId = try object.decode(String.self, forKey: CodingKeys.messageId)
        receivedAt = try object.decode(String.self, forKey: CodingKeys.receivedAt)
        seq = try object.decode(Int64.self, forKey: CodingKeys.seq)
        epoch = try object.decode(Int64.self, forKey: CodingKeys.epoch)
        serverTime = try object.decodeIfPresent(String.self, forKey: CodingKeys.serverTime)
        recipients = try object.decodeIfPresent([RecipientView].self, forKey: CodingKeys.recipients)
    }

    public func encode(json object: inout JSONObjectWriter) {
        object.encode(messageId, forKey: CodingKeys.messageId)
        object.encode(receivedAt, forKey: CodingKeys.receivedAt)
        object.encode(seq, forKey: CodingKeys.seq)
        object.encode(epoch, forKey: CodingKeys.epoch)
        object.encodeIfPresent(serverTime, forKey: CodingKeys.serverTime)
        object.encodeIfPresent(recipients, forKey: CodingKeys.recipients)
    }
}
