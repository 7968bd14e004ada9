import HTTP

/// A blob's bytes as a response, streamed from its content file (sendfile), never loaded into
/// memory: whole, or one `Range` (206; 416 past the end); v1's getBlob and the chat contract's.
enum BlobFileResponse {
    /// nil when the file is missing (the caller answers as for a missing blob).
    static func make(path: String, size: Int, contentType: String, range: String?) -> HTTPResponse? {
        var headers = HTTPHeaders()
        headers.add("Content-Type", contentType)
        headers.add("Accept-Ranges", "bytes")
        // The bytes are the client's ciphertext: never to be sniffed or rendered by a browser.
        headers.add("X-Content-Type-Options", "nosniff")
        headers.add("Content-Disposition", "attachment")
        let status: Int
        let offset: Int
        let length: Int
        switch ByteRange.resolve(range, size: size) {
        case .whole:
            (status, offset, length) = (200, 0, size)
        case .partial(let start, let count):
            (status, offset, length) = (206, start, count)
            headers.add("Content-Range", "bytes \(start)-\(start + count - 1)/\(size)")
        case .unsatisfiable:
            return XRPCError(416, .rangeNotSatisfiable, "the range starts past the blob's \(size) bytes",
                             headers: [("Content-Range", "bytes */\(size)")]).response
        }
        guard let file = HTTPFileBody.open(path: path, offset: offset, length: length) else { return nil }
        return HTTPResponse(status: status, headers: headers, file: file)
    }
}
