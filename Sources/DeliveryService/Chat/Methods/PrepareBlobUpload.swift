import Basics
import ChatProtocol
import DeliveryStore
import Foundation
import Primitives

/// `blue.catbird.chat.prepareBlobUpload`, the first of the two steps (defs
/// `blobUploadPreparationBody`): a device holding a leaf at the conversation's current coordinates
/// (`ConversationNotFound`, `StaleCoordinates`, `DeviceNotLeaf`) fixes a new blob's id, purpose,
/// ciphertext size and SHA-256. Its size is reserved from the account's blob quota, the one v1's
/// attachments count against (`BlobQuotaExceeded`, also when 100 uploads wait unbound), and a
/// one-time ticket for uploadBlob comes back: 32 random bytes, stored only as their SHA-256, bound
/// to the device and the blob, valid 5 minutes. A blob id is used once (`BlobAlreadyExists`).
///
/// The same signed request again, while the ticket is unused and alive, gets a new ticket for the
/// same reservation (the earlier one stops working), since the service cannot repeat a ticket it
/// does not keep; once the ticket was used or expired it gets `BlobAlreadyExists`.
enum PrepareBlobUpload {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "prepareBlobUpload", .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let blobID = body["blobId"]?.uuid, let conversationID = body["conversationId"]?.uuid,
                  let prior = ConversationCoordinates(body["prior"]), let sha256 = body["ciphertextSha256"]?.bytes,
                  let size = body["ciphertextSize"]?.integer, let mediaType = body["mediaType"]?.text,
                  let plaintextSize = body["plaintextSize"]?.integer, let purpose = body["purpose"]?.text
            else { throw ChatRefusal(.invalidRequest, "incomplete preparation") }
            guard prior.conversationID == conversationID else {
                throw ChatRefusal(.invalidRequest, "prior must be the coordinates of conversationId")
            }
            // The contract's ciphertext is AES-256-GCM of the plaintext: its size and the 16-byte tag.
            guard plaintextSize + 16 <= size else {
                throw ChatRefusal(.invalidRequest, "ciphertextSize must hold plaintextSize and the 16-byte tag")
            }
            return try call.execute(verified, device: device, replay: { tx in
                let ticket = UploadTicket()
                guard let blob = try tx.reissueTicket(blobID, owner: call.caller, ticketHash: ticket.hash, now: env.clock()) else {
                    throw ChatRefusal(.blobAlreadyExists, "this preparation's ticket was used or has expired")
                }
                return view(blob, ticket: ticket.text)
            }) { tx in
                guard let conversation = try tx.conversation(conversationID) else {
                    throw ChatRefusal(.conversationNotFound, "no such conversation")
                }
                guard conversation.coordinates == prior, prior.lifecycle == .active else {
                    throw ChatRefusal(.staleCoordinates, "the conversation is at other coordinates")
                }
                guard try tx.leaf(conversationID, did: call.caller, device: device.deviceID) != nil else {
                    throw ChatRefusal(.deviceNotLeaf, "the signing device holds no leaf in this conversation")
                }
                let now = env.clock()
                let blob = ChatBlob(blobID: blobID, ownerDID: call.caller, ownerDeviceID: device.deviceID, conversationID: conversationID,
                                    purpose: purpose, sha256: sha256, size: Int64(size), mediaType: mediaType,
                                    plaintextSize: Int64(plaintextSize),
                                    ticketExpiresAt: now.addingTimeInterval(ChatTransaction.blobTicketLifetime), expiresAt: nil)
                let ticket = UploadTicket()
                try tx.reserveBlob(blob, ticketHash: ticket.hash, quota: env.blobQuota, now: now)
                return (view(blob, ticket: ticket.text), view(blob, ticket: nil))
            }
        }
    }

    /// `{upload: #blobUploadView}`; recorded without its ticket.
    static func view(_ blob: ChatBlob, ticket: String?) -> [UInt8] {
        var upload: [String: ChatValue] = [
            "blobId": .uuid(blob.blobID), "ciphertextSha256": .bytes(blob.sha256), "ciphertextSize": .integer(UInt64(blob.size)),
            "purpose": .text(blob.purpose), "expiresAt": ChatViews.time(blob.ticketExpiresAt),
        ]
        upload["uploadTicket"] = ticket.map(ChatValue.text)
        return ChatJSON.render(.object(["upload": .object(upload)]))
    }
}

/// A one-time upload ticket: 32 random bytes as unpadded base64url (43 characters), of which the
/// store keeps only the SHA-256.
struct UploadTicket {
    let text: String
    let hash: [UInt8]

    init() {
        text = Base64.encode(SecureRandom.bytes(32), padding: false, alphabet: .url)
        hash = Self.hash(text)
    }

    static func hash(_ text: String) -> [UInt8] { HashAlgorithm.sha256.hash(Array(text.utf8)) }
}
