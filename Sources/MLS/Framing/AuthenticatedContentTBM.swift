/// RFC 9420 §6.2: what a PublicMessage's membership tag covers: the signed bytes and the auth data.
public struct AuthenticatedContentTBM: MLSEncodable, Hashable, Sendable {
    public var contentTBS: FramedContentTBS
    public var auth: FramedContentAuthData

    public init(contentTBS: FramedContentTBS, auth: FramedContentAuthData) {
        self.contentTBS = contentTBS
        self.auth = auth
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(contentTBS)
        auth.encode(to: &writer, contentType: contentTBS.content.contentType)
    }
}
