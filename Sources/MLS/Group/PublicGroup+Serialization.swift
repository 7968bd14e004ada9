/// A compact, versioned encoding of a PublicGroup's state for storage: GroupContext, tree, interim
/// transcript hash and this epoch's recorded proposals. Restoring trusts the stored bytes as far
/// as signatures go (they were checked when the state was built) but re-derives every tree hash
/// and requires it to match the GroupContext. `lastCommit` is not stored.
extension PublicGroup {
    static let magic: [UInt8] = Array("MLSPG".utf8)
    static let formatVersion: UInt8 = 1

    public func serialize() -> [UInt8] {
        var writer = TLSWriter(capacity: 4096)
        writer.writeBytes(Self.magic)
        writer.write(Self.formatVersion)
        writer.write(state.context)
        writer.write(state.tree.ratchetTree)
        writer.writeOpaque(state.interimTranscriptHash)
        writer.writeVector { w in
            for cached in state.proposals {
                w.writeOpaque(cached.ref)
                w.write(cached.sender)
                w.write(cached.proposal)
            }
        }
        return writer.bytes
    }

    /// Restores a serialized state. A tree beyond `limits` (stored before the limits existed, or under
    /// larger ones) is refused before it is built: `.decoding(.tooManyElements)` or `.tree(.treeTooWide)`.
    public init(serialized bytes: [UInt8], limits: TreeLimits = .unlimited) throws(GroupError) {
        guard bytes.count > Self.magic.count, Array(bytes.prefix(Self.magic.count)) == Self.magic else {
            throw .invalidSerializedState("not a serialized PublicGroup")
        }
        var reader = TLSReader(bytes, limits: limits.decoding)
        do {
            _ = try reader.readBytes(Self.magic.count)
            let version = try reader.readUInt8()
            guard version == Self.formatVersion else { throw GroupError.invalidSerializedState("format version \(version)") }
            let context = try GroupContext(from: &reader)
            let wireTree = try RatchetTree(from: &reader)
            let interim = try reader.readOpaque()
            let proposals = try reader.readVector { (r: inout TLSReader) throws(DecodingError) in
                let ref = try r.readOpaque()
                let sender = try Sender(from: &r)
                return CachedProposal(ref: ref, proposal: try Proposal(from: &r), sender: sender)
            }
            try reader.finish()
            guard let suite = CipherSuite(rawValue: context.cipherSuite) else { throw GroupError.cipherSuiteMismatch }
            let tree = try PublicRatchetTree(suite: suite, tree: wireTree, limits: limits)
            guard tree.treeHash == context.treeHash else { throw GroupError.invalidSerializedState("tree hash differs") }
            self.init(state: GroupState(suite: suite, context: context, tree: tree, interimTranscriptHash: interim,
                                        proposals: proposals))
        } catch let error as GroupError {
            throw error
        } catch let error as DecodingError {
            throw .decoding(error)
        } catch let error as TreeError {
            throw .tree(error)
        } catch {
            throw .invalidSerializedState("\(error)")
        }
    }
}
