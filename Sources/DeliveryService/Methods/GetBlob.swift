import DeliveryStore
import HTTP

/// `blue.catbird.mls.getBlob`: an attachment's bytes, streamed from its file (sendfile), to
/// current members of the blob's conversation only. Supports a single `Range` (206 / 416) and HEAD.
enum GetBlob {
    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.getBlob", .query) { context in
            let caller = context.caller
            let blobID = try context.parameters.requiredString("blobId")
            guard BlobID.isWellFormed(blobID), let blob = try env.store.blob(id: blobID) else { throw notFound }
            guard try env.store.isMember(convoID: blob.convoID, did: caller) else {
                throw DeliveryStoreError.notMember
            }
            guard let response = BlobFileResponse.make(path: env.blobs.path(for: blob.sha256), size: Int(blob.size),
                                                       contentType: blob.mimeType, range: context.request.headers["Range"]) else {
                env.log.error("blob file missing", ["blob": blobID])
                throw notFound
            }
            return .http(response)
        }
    }

    static let notFound = XRPCError.notFound(.blobNotFound, "no such blob")
}
