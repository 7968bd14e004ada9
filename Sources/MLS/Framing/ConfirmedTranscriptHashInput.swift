/// RFC 9420 §8.2: what a commit adds to the confirmed transcript hash.
public struct ConfirmedTranscriptHashInput: MLSEncodable, Hashable, Sendable {
    public var wireFormat: WireFormat
    public var content: FramedContent
    public var signature: [UInt8]

    public init(wireFormat: WireFormat, content: FramedContent, signature: [UInt8]) {
        self.wireFormat = wireFormat
        self.content = content
        self.signature = signature
    }

    public init(_ authenticated: AuthenticatedContent) {
        self.init(wireFormat: authenticated.wireFormat, content: authenticated.content, signature: authenticated.auth.signature)
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(wireFormat)
        writer.write(content)
        writer.writeOpaque(signature)
    }
}
