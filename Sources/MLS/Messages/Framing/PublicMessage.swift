/// RFC 9420 §6.2: a signed, unencrypted handshake message; a member sender adds a membership tag.
public struct PublicMessage: MLSCodable, Hashable, Sendable {
    public var content: FramedContent
    public var auth: FramedContentAuthData
    /// Present iff the sender is a member.
    public var membershipTag: [UInt8]?

    public init(content: FramedContent, auth: FramedContentAuthData, membershipTag: [UInt8]? = nil) {
        self.content = content
        self.auth = auth
        self.membershipTag = membershipTag
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        content = try FramedContent(from: &reader)
        auth = try FramedContentAuthData(from: &reader, contentType: content.contentType)
        if case .member = content.sender {
            membershipTag = try reader.readOpaque()
        } else {
            membershipTag = nil
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(content)
        auth.encode(to: &writer, contentType: content.contentType)
        // As with the confirmation tag, the layout follows the sender, whatever the field holds.
        if case .member = content.sender { writer.writeOpaque(membershipTag ?? []) }
    }
}
