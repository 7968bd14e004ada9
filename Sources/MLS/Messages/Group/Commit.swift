/// RFC 9420 §12.4: the proposals a commit applies and, when needed, the committer's new path.
public struct Commit: MLSCodable, Hashable, Sendable {
    public var proposals: [ProposalOrRef]
    public var path: UpdatePath?

    public init(proposals: [ProposalOrRef] = [], path: UpdatePath? = nil) {
        self.proposals = proposals
        self.path = path
    }

    public init(from reader: inout TLSReader) throws(DecodingError) {
        proposals = try reader.readVector()
        path = try reader.readOptional()
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeVector(proposals)
        writer.writeOptional(path)
    }
}
