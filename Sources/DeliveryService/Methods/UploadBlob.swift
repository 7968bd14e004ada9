import DeliveryStore
import HTTP
import Lexicon

/// `blue.catbird.mls.uploadBlob`: stores an encrypted attachment (API.md; lexicon/uploadBlob.json).
///
/// Everything that can be refused from the head is refused before one body byte is read: the
/// token (router), conversation membership, a declared size over the limit or over what is left of
/// the caller's quota. The body then streams to a temporary file, hashed as it goes, and is checked
/// against both limits again as it grows. The file is fsynced, renamed to its content path and
/// the directory fsynced before the row commits, so an acknowledged blob survives a crash; an
/// upload that does not finish leaves neither row nor file.
enum UploadBlob {
    typealias Output = UploadBlobOutput
    typealias BlobView = UploadBlobOutput.Blob

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        let maxBytes = env.limits.maxBlobBytes
        // One byte past the limit: the server's own cut-off never comes before this method's check.
        return XRPCMethod("blue.catbird.mls.uploadBlob", streamingUpTo: maxBytes + 1) { context, body in
            let caller = context.caller
            let convoID = try InputValidation.convoID(try context.parameters.requiredString("convoId"))
            let mimeType = try BlobMediaType.from(contentType: context.request.headers["Content-Type"])
            _ = try env.convo(convoID, memberDID: caller)
            if let declared = body.expectedLength {
                guard declared <= maxBytes else { throw tooLarge(maxBytes) }
                guard declared > 0 else { throw XRPCError.invalidRequest("the blob is empty") }
            }
            let quota = env.limits.blobQuotaBytes
            let used = try env.store.blobBytesUsed(ownerDID: caller)
            guard used + Int64(body.expectedLength ?? 1) <= quota else {
                throw DeliveryStoreError.quotaExceeded(used: used, quota: quota)
            }

            let upload = try env.blobs.startUpload()
            defer { upload.discard() }
            do {
                while let piece = try body.read() {
                    guard upload.size + piece.count <= maxBytes else { throw tooLarge(maxBytes) }
                    guard used + Int64(upload.size + piece.count) <= quota else {
                        throw DeliveryStoreError.quotaExceeded(used: used, quota: quota)
                    }
                    try upload.append(piece)
                }
            } catch let error as HTTPBodyStreamError {
                // The client has gone or gets the server's own answer; nothing is kept either way.
                throw error == .payloadTooLarge ? tooLarge(maxBytes) : XRPCError.invalidRequest("upload incomplete")
            }
            guard upload.size > 0 else { throw XRPCError.invalidRequest("the blob is empty") }
            let sha256 = try upload.finish()
            let blob = NewBlob(blobID: BlobID.generate(), sha256: sha256, size: Int64(upload.size),
                               ownerDID: caller, convoID: convoID, mimeType: mimeType)
            let stored: StoredBlob
            do {
                // The quota is checked again under the owner's lock: concurrent uploads cannot overshoot.
                stored = try env.store.insertBlob(blob, quota: quota) { try env.blobs.place(upload, sha256: sha256) }
            } catch {
                if upload.placed { BlobReclaimer(store: env.store, blobs: env.blobs, log: env.log).release([sha256]) }
                throw error
            }
            return .json(Output(blob: BlobView(blobId: stored.blobID, size: stored.size, mimeType: stored.mimeType)))
        }
    }

    static func tooLarge(_ maxBytes: Int) -> XRPCError {
        XRPCError(413, .blobTooLarge, "a blob is at most \(maxBytes) bytes")
    }
}
