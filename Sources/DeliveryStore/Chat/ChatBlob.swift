import ChatProtocol
import Foundation
import Store

/// A blob of the chat contract (table `chat_blobs`, docs/chat.md "Blobs"): what prepareBlobUpload
/// fixed (its conversation, purpose, ciphertext hash and size), where the two-step upload stands,
/// and what bound it. The bytes themselves are a content file of v1's blob store, named by `sha256`.
public struct ChatBlob: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Prepared: quota reserved, the ticket not used yet.
        case reserved
        /// The ticket was used; the bytes are streaming.
        case uploading
        /// The bytes are stored, bound to nothing yet.
        case uploaded
        /// A message (attachment) or a metadata snapshot (avatar) bound it.
        case bound
        /// Deleted, expired or failed: the id stays spent, nothing counts.
        case ended
    }

    public var blobID: ChatUUID
    public var ownerDID: String
    public var ownerDeviceID: ChatUUID
    public var conversationID: ChatUUID
    /// `attachment` or `metadata` (defs `blobPurpose`).
    public var purpose: String
    public var sha256: [UInt8]
    public var size: Int64
    public var mediaType: String
    public var plaintextSize: Int64
    public var status: Status
    public var ticketExpiresAt: Date
    /// When the row stops counting; nil while bound.
    public var expiresAt: Date?
    public var uploadedAt: Date?
    /// An attachment's entry.
    public var boundSeq: Int64?
    /// A metadata avatar's latest metadata version.
    public var boundMetadataVersion: Int64?

    public init(blobID: ChatUUID, ownerDID: String, ownerDeviceID: ChatUUID, conversationID: ChatUUID, purpose: String,
                sha256: [UInt8], size: Int64, mediaType: String, plaintextSize: Int64, status: Status = .reserved,
                ticketExpiresAt: Date, expiresAt: Date?, uploadedAt: Date? = nil, boundSeq: Int64? = nil,
                boundMetadataVersion: Int64? = nil) {
        self.blobID = blobID
        self.ownerDID = ownerDID
        self.ownerDeviceID = ownerDeviceID
        self.conversationID = conversationID
        self.purpose = purpose
        self.sha256 = sha256
        self.size = size
        self.mediaType = mediaType
        self.plaintextSize = plaintextSize
        self.status = status
        self.ticketExpiresAt = ticketExpiresAt
        self.expiresAt = expiresAt
        self.uploadedAt = uploadedAt
        self.boundSeq = boundSeq
        self.boundMetadataVersion = boundMetadataVersion
    }

    /// Whether the row still counts at `now` (quota, reads, bindings): not ended, not past its time.
    public func isLive(at now: Date) -> Bool {
        status != .ended && (expiresAt.map { $0 > now } ?? true)
    }
}

/// A blob a signed body binds (defs `applicationAttachmentBinding`, `metadataAvatarBinding`): it
/// must name exactly the uploaded blob.
public struct ChatBlobBinding: Sendable, Equatable {
    public var blobID: ChatUUID
    public var sha256: [UInt8]
    public var size: Int64
    public var purpose: String

    public init(blobID: ChatUUID, sha256: [UInt8], size: Int64, purpose: String) {
        self.blobID = blobID
        self.sha256 = sha256
        self.size = size
        self.purpose = purpose
    }

    /// The binding a body carries, as the lexicon shaped it.
    public init?(_ value: ChatValue?) {
        guard let value, let id = value["blobId"]?.uuid, let hash = value["ciphertextSha256"]?.bytes,
              let size = value["ciphertextSize"]?.integer, let purpose = value["purpose"]?.text else { return nil }
        self.init(blobID: id, sha256: hash, size: Int64(size), purpose: purpose)
    }
}

/// An account's blob storage (defs `blobUsageView`), v1's attachments and the chat contract's
/// blobs together: they share one quota.
public struct ChatBlobUsage: Sendable, Equatable {
    /// Bytes stored: v1's blobs, chat blobs uploaded or bound.
    public var usedBytes: Int64
    /// Bytes reserved by chat uploads prepared or streaming.
    public var reservedBytes: Int64
    /// Blobs stored (v1's and chat's uploaded or bound).
    public var blobCount: Int64
    /// Chat blobs reserved, streaming or uploaded and not bound yet.
    public var liveUnboundCount: Int64
}

extension ChatBlob {
    static let columns = """
        blob_id, owner_did, owner_device_id, conversation_id, purpose, sha256, size, media_type, plaintext_size, status,
        ticket_expires_at, expires_at, uploaded_at, bound_seq, bound_metadata_version
        """

    init(row: PGRow) throws {
        guard let status = Status(rawValue: try row.string("status")) else { throw StoreError.decoding("unknown chat blob status") }
        self.init(blobID: try row.chatUUID("blob_id"), ownerDID: try row.string("owner_did"),
                  ownerDeviceID: try row.chatUUID("owner_device_id"), conversationID: try row.chatUUID("conversation_id"),
                  purpose: try row.string("purpose"), sha256: try row.bytes("sha256"), size: try row.int64("size"),
                  mediaType: try row.string("media_type"), plaintextSize: try row.int64("plaintext_size"), status: status,
                  ticketExpiresAt: try row.date("ticket_expires_at"), expiresAt: try row.optionalDate("expires_at"),
                  uploadedAt: try row.optionalDate("uploaded_at"), boundSeq: try row.optionalInt64("bound_seq"),
                  boundMetadataVersion: try row.optionalInt64("bound_metadata_version"))
    }
}
