/// RFC 9420 §6: who sent a message.
public enum Sender: MLSCodable, Hashable, Sendable {
    case member(leafIndex: UInt32)
    /// An index into the group's `external_senders` extension.
    case external(senderIndex: UInt32)
    case newMemberProposal
    case newMemberCommit

    public var senderType: SenderType {
        switch self {
        case .member: .member
        case .external: .external
        case .newMemberProposal: .newMemberProposal
        case .newMemberCommit: .newMemberCommit
        }
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        switch try SenderType(from: &reader) {
        case .member: self = .member(leafIndex: try reader.readUInt32())
        case .external: self = .external(senderIndex: try reader.readUInt32())
        case .newMemberProposal: self = .newMemberProposal
        case .newMemberCommit: self = .newMemberCommit
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(senderType)
        switch self {
        case .member(let index), .external(let index): writer.write(index)
        case .newMemberProposal, .newMemberCommit: break
        }
    }
}
