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
            let size = Int(blob.size)
            var headers = HTTPHeaders()
            headers.add("Content-Type", blob.mimeType)
            headers.add("Accept-Ranges", "bytes")
            // The bytes are the client's ciphertext: never to be sniffed or rendered by a browser.
            headers.add("X-Content-Type-Options", "nosniff")
            headers.add("Content-Disposition", "attachment")
            let status: Int
            let offset: Int
            let length: Int
            switch ByteRange.resolve(context.request.headers["Range"], size: size) {
            case .whole:
                (status, offset, length) = (200, 0, size)
            case .partial(let start, let count):
                (status, offset, length) = (206, start, count)
                headers.add("Content-Range", "bytes \(start)-\(start + count - 1)/\(size)")
            case .unsatisfiable:
                return .http(XRPCError(416, .rangeNotSatisfiable, "the range starts past the blob's \(size) bytes",
                                       headers: [("Content-Range", "bytes */\(size)")]).response)
            }
            guard let file = HTTPFileBody.open(path: env.blobs.path(for: blob.sha256), offset: offset, length: length) else {
                env.log.error("blob file missing", ["blob": blobID])
                throw notFound
            }
            return .http(HTTPResponse(status: status, headers: headers, file: file))
        }
    }

    static let notFound = XRPCError.notFound(.blobNotFound, "no such blob")
}
