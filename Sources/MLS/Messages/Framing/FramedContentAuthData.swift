/// RFC 9420 §6.1: the signature over a FramedContentTBS and, for commits, the confirmation tag.
/// Its layout depends on the content type, so it is decoded with that type as context.
public struct FramedContentAuthData: Hashable, Sendable {
    public var signature: [UInt8]
    /// Present iff the content is a commit.
    public var confirmationTag: [UInt8]?

    public init(signature: [UInt8], confirmationTag: [UInt8]? = nil) {
        self.signature = signature
        self.confirmationTag = confirmationTag
    }

    public init(from reader: inout TLSReader, contentType: ContentType) throws(DecodingError) {
        signature = try reader.readOpaque()
        confirmationTag = contentType == .commit ? try reader.readOpaque() : nil
    }

    /// Writes the signature and the tag. The caller keeps `confirmationTag` consistent with the
    /// content type; a commit without a tag is written with an empty one so the layout stays valid.
    public func encode(to writer: inout TLSWriter, contentType: ContentType) {
        writer.writeOpaque(signature)
        if contentType == .commit { writer.writeOpaque(confirmationTag ?? []) }
    }
}
