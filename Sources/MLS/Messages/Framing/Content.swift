/// RFC 9420 §6: the `select (content_type)` body shared by FramedContent and PrivateMessageContent.
public enum Content: Hashable, Sendable {
    case application([UInt8])
    case proposal(Proposal)
    case commit(Commit)

    public var contentType: ContentType {
        switch self {
        case .application: .application
        case .proposal: .proposal
        case .commit: .commit
        }
    }

    /// Reads the body selected by `contentType` (the type itself is not read).
    public init(contentType: ContentType, from reader: inout TLSReader) throws(DecodingError) {
        switch contentType {
        case .application: self = .application(try reader.readOpaque())
        case .proposal: self = .proposal(try Proposal(from: &reader))
        case .commit: self = .commit(try Commit(from: &reader))
        }
    }

    /// Writes the body without the type.
    public func encodeBody(to writer: inout TLSWriter) {
        switch self {
        case .application(let data): writer.writeOpaque(data)
        case .proposal(let proposal): writer.write(proposal)
        case .commit(let commit): writer.write(commit)
        }
    }
}
