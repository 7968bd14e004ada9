/// RFC 9420 §6.1: what a framed content's signature covers. Members and new-member committers
/// also sign the GroupContext; external senders and new-member proposers do not.
public struct FramedContentTBS: MLSEncodable, Hashable, Sendable {
    public var version: ProtocolVersion
    public var wireFormat: WireFormat
    public var content: FramedContent
    /// Needed when the sender is a member or a new-member committer; ignored otherwise.
    public var context: GroupContext?

    public init(version: ProtocolVersion = .mls10, wireFormat: WireFormat, content: FramedContent, context: GroupContext?) {
        self.version = version
        self.wireFormat = wireFormat
        self.content = content
        self.context = context
    }

    /// Whether the sender's type puts the GroupContext in the signed bytes.
    public var includesContext: Bool {
        switch content.sender {
        case .member, .newMemberCommit: true
        case .external, .newMemberProposal: false
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(version)
        writer.write(wireFormat)
        writer.write(content)
        guard includesContext else { return }
        // A missing context is a caller bug, not hostile input: the signed bytes would be wrong.
        guard let context else { preconditionFailure("FramedContentTBS for this sender needs the GroupContext") }
        writer.write(context)
    }
}
