/// RFC 9420 §6.3.1: the plaintext of a PrivateMessage: content, auth data, then zero padding up to
/// the end of the plaintext. Its layout depends on the PrivateMessage's content type.
public struct PrivateMessageContent: Hashable, Sendable {
    public var content: Content
    public var auth: FramedContentAuthData
    /// How many zero bytes follow the auth data.
    public var paddingLength: Int

    public var contentType: ContentType { content.contentType }

    public init(content: Content, auth: FramedContentAuthData, paddingLength: Int = 0) {
        self.content = content
        self.auth = auth
        self.paddingLength = max(0, paddingLength)
    }

    /// Reads the content selected by `contentType`, the auth data, and takes every remaining byte
    /// as padding, which must all be zero.
    public init(from reader: inout TLSReader, contentType: ContentType) throws(DecodingError) {
        content = try Content(contentType: contentType, from: &reader)
        auth = try FramedContentAuthData(from: &reader, contentType: contentType)
        let padding = try reader.readBytes(reader.remaining)
        // RFC 9420 §6.3.1: a receiver must check that the padding is all zero.
        guard padding.allSatisfy({ $0 == 0 }) else { throw .invalidValue("nonzero padding") }
        paddingLength = padding.count
    }

    public init(decoding bytes: [UInt8], contentType: ContentType) throws(DecodingError) {
        var reader = TLSReader(bytes)
        self = try PrivateMessageContent(from: &reader, contentType: contentType)
    }

    public func encode(to writer: inout TLSWriter) {
        content.encodeBody(to: &writer)
        auth.encode(to: &writer, contentType: contentType)
        writer.writeBytes(repeatElement(UInt8(0), count: paddingLength))
    }

    /// The plaintext with `paddingLength` zero bytes of padding.
    public func encoded(paddingLength: Int) -> [UInt8] {
        var copy = self
        copy.paddingLength = max(0, paddingLength)
        var writer = TLSWriter()
        copy.encode(to: &writer)
        return writer.bytes
    }

    public func encoded() -> [UInt8] { encoded(paddingLength: paddingLength) }
}
