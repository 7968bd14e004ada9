/// RFC 9420 §8.2: what a commit's confirmation tag adds to the interim transcript hash.
public struct InterimTranscriptHashInput: MLSEncodable, Hashable, Sendable {
    public var confirmationTag: [UInt8]

    public init(confirmationTag: [UInt8]) {
        self.confirmationTag = confirmationTag
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(confirmationTag)
    }
}
