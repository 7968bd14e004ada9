import ChatProtocol
import DeliveryStore
import Foundation
import HTTP

/// `blue.catbird.chat.uploadBlob`, the second step: the ciphertext of a prepared blob as raw bytes
/// (`?actorDeviceId=&uploadTicket=`, not signed: the ticket stands for the signed preparation).
///
/// Before a body byte is read: the parameters, the Content-Type, then the ticket, which is spent
/// at once (`UploadTicketNotFound` for one unknown, used or another device's; `UploadTicketExpired`
/// after 5 minutes, which also ends the reservation), then a declared Content-Length other than
/// the prepared size (`BlobSizeMismatch`). The body streams as v1's uploads do
/// (XRPCRouter+Streaming, UploadLimit): in ≤ 64 KiB pieces to a temporary file, hashed as it goes,
/// never more than the prepared size kept (`BlobSizeMismatch` at the first byte past it). At the end
/// the size and SHA-256 must be the prepared ones (`BlobSizeMismatch`, `BlobHashMismatch`); the
/// file is fsynced and placed under its content hash, as v1's are, and the blob is `uploaded`. A
/// mismatch, an incomplete body or any other failure after the ticket was spent ends the
/// reservation: nothing is kept and the quota is returned; the client prepares again.
enum UploadChatBlob {
    static let nsid = ChatMethods.prefix + "uploadBlob"

    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        // One byte past the contract's largest blob: the server's own cut-off never comes first.
        XRPCMethod(nsid, streamingUpTo: Int(ChatTransaction.maxBlobSize) + 1) { context, body in
            try ChatQuery.check(context.parameters, of: nsid, env: env)
            let deviceID = try ChatQuery.uuid(context.parameters, "actorDeviceId")
            guard let ticket = context.parameters.string("uploadTicket") else {
                throw ChatRefusal(.invalidRequest, "uploadTicket is required")
            }
            if let type = context.request.headers["Content-Type"],
               type.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased() != "application/octet-stream" {
                throw ChatRefusal(.invalidRequest, "the body is application/octet-stream")
            }
            let caller = context.caller.rawValue
            let claim = try env.store.chat { tx -> ChatTransaction.TicketClaim in
                guard let device = try tx.device(did: caller, id: deviceID), device.isActive else {
                    throw ChatRefusal(.notAuthorized, "actorDeviceId is not an active device of this account")
                }
                return try tx.claimUpload(ticketHash: UploadTicket.hash(ticket), did: caller, device: deviceID, now: env.clock())
            }
            guard case .claimed(let blob) = claim else {
                throw ChatRefusal(.uploadTicketExpired, "the upload ticket expired; prepare the upload again")
            }
            do {
                return try receive(blob, body: body, env: env)
            } catch {
                // The ticket is spent: whatever went wrong, the reservation ends and nothing is kept.
                _ = try? env.store.chat { try $0.end(blob.blobID, now: env.clock()) }
                throw error
            }
        }
    }

    static func receive(_ blob: ChatBlob, body: XRPCBodyReader, env: ChatEnvironment) throws -> XRPCOutput {
        func sizeMismatch() -> ChatRefusal {
            ChatRefusal(.blobSizeMismatch, "the body is not the prepared \(blob.size) bytes")
        }
        if let declared = body.expectedLength, Int64(declared) != blob.size { throw sizeMismatch() }
        let upload = try env.blobs.startUpload()
        defer { upload.discard() }
        do {
            while let piece = try body.read() {
                guard Int64(upload.size + piece.count) <= blob.size else { throw sizeMismatch() }
                try upload.append(piece)
            }
        } catch let error as HTTPBodyStreamError {
            throw error == .payloadTooLarge ? sizeMismatch() : ChatRefusal(.invalidRequest, "upload incomplete")
        }
        guard Int64(upload.size) == blob.size else { throw sizeMismatch() }
        let sha256 = try upload.finish()
        guard sha256 == blob.sha256 else { throw ChatRefusal(.blobHashMismatch, "the bytes' SHA-256 is not the prepared one") }
        let uploaded: ChatBlob
        do {
            uploaded = try env.store.chat { tx in
                try tx.completeUpload(blob.blobID, now: env.clock()) { try env.blobs.place(upload, sha256: sha256) }
            }
        } catch {
            // Placed but not recorded: the file goes unless another row uses the same content.
            if upload.placed { env.blobReclaimer.release([sha256]) }
            throw error
        }
        return env.output(.object([
            "binding": .object(["blobId": .uuid(uploaded.blobID), "ciphertextSha256": .bytes(uploaded.sha256),
                                "ciphertextSize": .integer(UInt64(uploaded.size)), "purpose": .text(uploaded.purpose)]),
            "uploadedAt": ChatViews.time(uploaded.uploadedAt ?? env.clock()),
        ]))
    }
}
