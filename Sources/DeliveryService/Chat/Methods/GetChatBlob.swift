import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.getBlob`: a blob's ciphertext as `application/octet-stream`, streamed from
/// its content file as v1's getBlob streams (whole or one `Range`), to the calling device only when
/// it may see it: an attachment when one of the device's intervals in the blob's conversation
/// covers the entry that bound it (so not to a non-member, nor to a device that joined after the
/// message), a group avatar to a participant's device, an unbound upload to its own account.
/// Anything else, and any blob expired or deleted, is 404 `BlobNotFound`, which the app reads as
/// "expired".
enum GetChatBlob {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "getBlob", .query) { context in
            let query = try ChatQuery(context, env: env)
            let id = try query.uuid("blobId")
            guard let blob = try env.store.chat({ try $0.readableBlob(id, did: query.caller, device: query.device.deviceID, now: env.clock()) }),
                  let response = BlobFileResponse.make(path: env.blobs.path(for: blob.sha256), size: Int(blob.size),
                                                       contentType: "application/octet-stream", range: context.request.headers["Range"])
            else { throw XRPCError(404, XRPCErrorName(chat: .blobNotFound), "no blob this device may read has this id") }
            return .http(response)
        }
    }
}
