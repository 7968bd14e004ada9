import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.deleteBlob` (defs `blobDeletionBody`): one of the account's blobs that
/// nothing bound yet (`BlobNotFound` for none, `BlobBound` once a message or metadata bound it) is
/// ended: a reservation is released, an upload's bytes are removed unless another blob stores the
/// same content, the quota is returned. Its id stays spent.
enum DeleteBlob {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "deleteBlob", .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            guard let id = call.request.body["blobId"]?.uuid else { throw ChatRefusal(.invalidRequest, "blobId is missing") }
            var released: [UInt8]?
            let output = try call.execute(verified, device: device) { tx in
                let now = env.clock()
                released = try tx.deleteBlob(id, owner: call.caller, now: now)
                return ChatJSON.render(.object(["blobId": .uuid(id), "deletedAt": ChatViews.time(now)]))
            }
            if let released { env.blobReclaimer.release([released]) }
            return output
        }
    }
}
