import ChatProtocol
import Foundation
import Primitives

/// An encrypted image a message carries (defs `encryptedImageEmbed`, attachment profile
/// `aes256GcmBlob1`): the blob's id, the AES-256-GCM key and nonce only members see (they travel
/// inside the MLS-encrypted application frame), what the ciphertext must be, and the blob AAD it
/// was sealed under.
public struct ChatAttachment: Sendable, Equatable {
    public let blobID: ChatUUID
    public let key: [UInt8]
    public let nonce: [UInt8]
    public let sha256: [UInt8]
    public let size: UInt64
    public let plaintextSize: UInt64
    public let mimeType: String
    public let width: UInt64
    public let height: UInt64
    /// `#blobAad` of the message that carries it, as canonical DAG-CBOR.
    let aad: [UInt8]

    init(blobID: ChatUUID, key: [UInt8], nonce: [UInt8], sha256: [UInt8], size: UInt64, plaintextSize: UInt64, mimeType: String,
         width: UInt64, height: UInt64, aad: [UInt8]) {
        self.blobID = blobID
        self.key = key
        self.nonce = nonce
        self.sha256 = sha256
        self.size = size
        self.plaintextSize = plaintextSize
        self.mimeType = mimeType
        self.width = width
        self.height = height
        self.aad = aad
    }

    /// An `encryptedImageEmbed` or `#metadataAvatarEmbed` (the fields they share), opened under
    /// the AAD `aad` gives for its blob id, media type and plaintext size; nil when it is incomplete.
    init?(embed: DAGCBORValue, aad: (_ blobID: ChatUUID, _ mimeType: String, _ plaintextSize: UInt64) -> [UInt8]?) {
        guard case .bytes(let id)? = embed["blobId"], let blobID = ChatUUID(bytes: id), case .bytes(let key)? = embed["key"],
              case .bytes(let nonce)? = embed["nonce"], case .bytes(let sha256)? = embed["ciphertextSha256"],
              case .unsigned(let size)? = embed["ciphertextSize"], case .unsigned(let plaintextSize)? = embed["plaintextSize"],
              case .text(let mimeType)? = embed["mimeType"], case .unsigned(let width)? = embed["width"],
              case .unsigned(let height)? = embed["height"], embed["algorithm"] == .text("A256GCM"),
              let aad = aad(blobID, mimeType, plaintextSize) else { return nil }
        self.init(blobID: blobID, key: key, nonce: nonce, sha256: sha256, size: size, plaintextSize: plaintextSize, mimeType: mimeType,
                  width: width, height: height, aad: aad)
    }

    /// The embed of a decrypted `#applicationFrame`, with the AAD rebuilt from the frame's context
    /// and message id.
    init?(embed: DAGCBORValue, frame: DAGCBORValue) {
        guard let context = frame["context"], case .bytes(let messageID)? = frame["messageId"] else { return nil }
        self.init(embed: embed) { blobID, mimeType, plaintextSize in
            Self.aad(context: context, messageID: messageID, blobID: blobID.bytes, mediaType: mimeType, plaintextSize: plaintextSize)
        }
    }

    /// `#blobAad`: the first (and only) attachment of the message `messageID` sent at `context`
    /// (the frame's `#applicationFrameContext`). Its canonical DAG-CBOR is the AES-GCM AAD, so a
    /// blob opens only as the attachment of the message and conversation state that carry it.
    static func aad(context: DAGCBORValue, messageID: [UInt8], blobID: [UInt8], mediaType: String, plaintextSize: UInt64) -> [UInt8] {
        DAGCBOR.encode(.map([
            "protocol": .text("blue.catbird.chat.blob"), "context": context, "messageId": .bytes(messageID),
            "attachmentIndex": .unsigned(0), "blobId": .bytes(blobID), "purpose": .text("attachment"),
            "mediaType": .text(mediaType), "plaintextSize": .unsigned(plaintextSize),
        ]))
    }
}

extension ChatClient {
    /// Sends an image to a conversation this device holds a leaf in, the contract's two steps:
    /// the bytes are encrypted with a fresh AES-256-GCM key under the blob AAD of a new message,
    /// the upload is prepared (the quota reserved, a ticket issued) and the ciphertext uploaded;
    /// then the message binds the blob and carries the key in an `encryptedImageEmbed`. Returns
    /// the stored entry.
    @discardableResult
    public func sendImage(_ conversation: ChatUUID, bytes: [UInt8], mimeType: String, width: UInt64, height: UInt64,
                          text: String? = nil) throws -> ChatValue {
        try sync(conversation)
        let prior = try coordinates(conversation)
        let messageID = ChatUUID.random(), blobID = ChatUUID.random()
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(12)
        let aad = ChatAttachment.aad(context: prior.aadPriorContext.dagCBOR(.signing), messageID: messageID.bytes, blobID: blobID.bytes,
                                     mediaType: mimeType, plaintextSize: UInt64(bytes.count))
        let ciphertext = try AEADAlgorithm.aes256GCM.seal(key: key, nonce: nonce, plaintext: bytes, authenticating: aad)
        let sha256 = HashAlgorithm.sha256.hash(ciphertext)
        let upload = try prepareBlob(blobID, in: conversation, at: prior, sha256: sha256, size: ciphertext.count, mediaType: mimeType,
                                     plaintextSize: bytes.count)
        guard let ticket = upload["uploadTicket"]?.text else { throw MLSClientError.invalidServerData("no upload ticket") }
        try api.uploadBlob(ciphertext, device: device.deviceID, ticket: ticket)
        var message: [String: ChatValue] = ["embed": .tagged("encryptedImageEmbedVariant", ["encryptedImage": .object([
            "blobId": .bytes(blobID.bytes), "purpose": .text("attachment"), "algorithm": .text("A256GCM"), "key": .bytes(key),
            "nonce": .bytes(nonce), "ciphertextSha256": .bytes(sha256), "ciphertextSize": .integer(UInt64(ciphertext.count)),
            "plaintextSize": .integer(UInt64(bytes.count)), "mimeType": .text(mimeType), "width": .integer(width),
            "height": .integer(height),
        ])])]
        message["text"] = text.map(ChatValue.text)
        let binding = ChatValue.object(["blobId": .uuid(blobID), "ciphertextSha256": .bytes(sha256),
                                        "ciphertextSize": .integer(UInt64(ciphertext.count)), "purpose": .text("attachment")])
        return try post(try seal(message: .object(message), id: messageID, bindings: [binding], in: conversation, at: prior),
                        in: conversation)
    }

    /// Sets the conversation's avatar (an admin's metadata transition): the image is encrypted with
    /// a fresh AES-256-GCM key under `#metadataAvatarBlobAad`, uploaded in the two steps as a
    /// `metadata` blob, and named by the next metadata version: its key in the signed content's
    /// `avatar`, the blob in the snapshot's `avatarBinding`, which the service binds. The title stays.
    @discardableResult
    public func setAvatar(_ conversation: ChatUUID, bytes: [UInt8], mimeType: String, width: UInt64, height: UInt64) throws -> ChatValue {
        try sync(conversation)
        let membership = try current(conversation)
        let step = try nextMetadata(conversation)
        let blobID = ChatUUID.random(), key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(12)
        let aad = ChatMetadata.avatarAAD(conversation: conversation, origin: step.transition, version: step.version + 1,
                                         blobID: blobID, mediaType: mimeType, plaintextSize: UInt64(bytes.count))
        let ciphertext = try AEADAlgorithm.aes256GCM.seal(key: key, nonce: nonce, plaintext: bytes, authenticating: aad)
        let sha256 = HashAlgorithm.sha256.hash(ciphertext)
        let upload = try prepareBlob(blobID, in: conversation, at: step.prior, sha256: sha256, size: ciphertext.count,
                                     mediaType: mimeType, plaintextSize: bytes.count, purpose: "metadata")
        guard let ticket = upload["uploadTicket"]?.text else { throw MLSClientError.invalidServerData("no upload ticket") }
        try api.uploadBlob(ciphertext, device: device.deviceID, ticket: ticket)
        let embed = DAGCBORValue.map([
            "blobId": .bytes(blobID.bytes), "purpose": .text("metadata"), "algorithm": .text("A256GCM"), "key": .bytes(key),
            "nonce": .bytes(nonce), "ciphertextSha256": .bytes(sha256), "ciphertextSize": .unsigned(UInt64(ciphertext.count)),
            "plaintextSize": .unsigned(UInt64(bytes.count)), "mimeType": .text(mimeType), "width": .unsigned(width),
            "height": .unsigned(height), "originTransitionId": .bytes(step.transition.bytes),
            "originalMetadataVersion": .unsigned(step.version + 1),
        ])
        let binding = ChatValue.object(["blobId": .uuid(blobID), "ciphertextSha256": .bytes(sha256),
                                        "ciphertextSize": .integer(UInt64(ciphertext.count)), "purpose": .text("metadata")])
        return try setMetadata(conversation, title: membership.title, avatar: embed, binding: binding, step: step)
    }

    /// The conversation's avatar as the current metadata names it, downloaded and decrypted (nil
    /// without one): the ciphertext must be the size and hash the signed embed names, and open under
    /// its key and the avatar AAD.
    public func avatar(_ conversation: ChatUUID) throws -> [UInt8]? {
        try sync(conversation)
        guard let embed = ChatMetadata.avatar(try current(conversation).metadata) else { return nil }
        guard case .bytes(let origin)? = embed["originTransitionId"], let originID = ChatUUID(bytes: origin),
              case .unsigned(let version)? = embed["originalMetadataVersion"],
              let avatar = ChatAttachment(embed: embed, aad: { blobID, mimeType, plaintextSize in
                  ChatMetadata.avatarAAD(conversation: conversation, origin: originID, version: version, blobID: blobID,
                                         mediaType: mimeType, plaintextSize: plaintextSize)
              }) else { throw MLSClientError.invalidServerData("incomplete avatar embed") }
        return try open(avatar)
    }

    /// `prepareBlobUpload` of a blob of this device's in `conversation` at `prior`; returns the
    /// `#blobUploadView` with its ticket.
    public func prepareBlob(_ blobID: ChatUUID, in conversation: ChatUUID, at prior: ConversationCoordinates, sha256: [UInt8],
                            size: Int, mediaType: String, plaintextSize: Int, purpose: String = "attachment") throws -> ChatValue {
        try signed("prepareBlobUpload", .blobUploadPreparation, [
            "blobId": .uuid(blobID), "conversationId": .uuid(conversation), "prior": prior.value, "ciphertextSha256": .bytes(sha256),
            "ciphertextSize": .integer(UInt64(size)), "mediaType": .text(mediaType), "plaintextSize": .integer(UInt64(plaintextSize)),
            "purpose": .text(purpose),
        ])["upload"] ?? .object([:])
    }

    /// Downloads an attachment and decrypts it: the ciphertext must be the size and SHA-256 the
    /// embed names, and open under its key, nonce and the message's blob AAD.
    public func open(_ attachment: ChatAttachment) throws -> [UInt8] {
        let ciphertext = try api.getBlob(attachment.blobID, device: device.deviceID)
        guard UInt64(ciphertext.count) == attachment.size, HashAlgorithm.sha256.hash(ciphertext) == attachment.sha256 else {
            throw MLSClientError.invalidServerData("the blob is not the ciphertext its embed names")
        }
        let plaintext = try AEADAlgorithm.aes256GCM.open(key: attachment.key, nonce: attachment.nonce, ciphertext: ciphertext,
                                                         authenticating: attachment.aad)
        guard UInt64(plaintext.count) == attachment.plaintextSize else {
            throw MLSClientError.invalidServerData("the attachment's plaintext is not the size its embed names")
        }
        return plaintext
    }

    /// `deleteBlob` of one of this account's blobs.
    @discardableResult
    public func deleteBlob(_ blobID: ChatUUID) throws -> ChatValue {
        try signed("deleteBlob", .blobDeletion, ["blobId": .uuid(blobID)])
    }

    /// `getBlobUsage`: the account's `#blobUsageView`.
    public func blobUsage() throws -> ChatValue {
        try query("getBlobUsage")["usage"] ?? .object([:])
    }
}
