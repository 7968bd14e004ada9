/// RFC 9420 §6.1: framed content with its wire format and authentication, the unit that proposal
/// references and transcript hashes are computed over.
public struct AuthenticatedContent: MLSCodable, Hashable, Sendable {
    public var wireFormat: WireFormat
    public var content: FramedContent
    public var auth: FramedContentAuthData

    public init(wireFormat: WireFormat, content: FramedContent, auth: FramedContentAuthData) {
        self.wireFormat = wireFormat
        self.content = content
        self.auth = auth
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        wireFormat = try WireFormat(from: &reader)
        content = try FramedContent(from: &reader)
        auth = try FramedContentAuthData(from: &reader, contentType: content.contentType)
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(wireFormat)
        writer.write(content)
        auth.encode(to: &writer, contentType: content.contentType)
    }
}
