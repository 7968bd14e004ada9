import Primitives

/// Creating commits and standalone proposals (RFC 9420 §12.1, §12.4.1).
extension Group {
    /// Commits the proposals received this epoch (by reference; those this member may not commit,
    /// an Update of its own or a Remove of itself, and a second change to one leaf, are left out)
    /// and `proposals` (inline). A path is included when RFC 9420 §12.4 requires one or
    /// `includePath` is true. The commit is a PublicMessage or a PrivateMessage as the wire format
    /// policy says. The committer's new state is in the output; `self` stays in the current epoch,
    /// its handshake ratchet unmoved: a second commit built from it for the same epoch takes the
    /// same generation, and the random reuse_guard keeps the nonces apart (RFC 9420 §6.3.1).
    public func commit(
        proposals inline: [Proposal] = [], includePending: Bool = true, includePath: Bool = true,
        authenticatedData: [UInt8] = [], now: UInt64? = nil
    ) throws(GroupError) -> CommitOutput {
        try checkActive()
        var list: [ProposalOrRef] = []
        if includePending {
            // RFC 9420 §12.2: at most one Update or Remove per leaf, preferring a Remove, else the
            // most recent Update; never the committer's own Update or Remove.
            var removed = Set<UInt32>(), latestUpdate: [UInt32: [UInt8]] = [:]
            for cached in state.proposals {
                if case .remove(let leaf) = cached.proposal { removed.insert(leaf) }
                if case .update = cached.proposal, case .member(let leaf) = cached.sender { latestUpdate[leaf] = cached.ref }
            }
            var removing = Set<UInt32>()
            for cached in state.proposals {
                switch cached.proposal {
                case .remove(let leaf):
                    if leaf == ownLeaf || !removing.insert(leaf).inserted { continue }
                case .update:
                    guard case .member(let leaf) = cached.sender, leaf != ownLeaf, !removed.contains(leaf),
                          latestUpdate[leaf] == cached.ref else { continue }
                default:
                    break
                }
                list.append(.reference(cached.ref))
            }
        }
        list += inline.map { .proposal($0) }
        let sender = Sender.member(leafIndex: ownLeaf)
        let resolved = try state.resolve(list, committer: sender)
        try state.validateList(resolved, committer: sender, inlineOnly: true)
        let applied = try state.apply(resolved, now: now)
        let withPath = includePath || applied.pathRequired || list.isEmpty

        var tree = applied.tree
        var committerPath: CommitterPath?
        var provisional = GroupContext(
            version: state.context.version, cipherSuite: state.context.cipherSuite, groupID: groupID,
            epoch: epoch + 1, treeHash: tree.treeHash, confirmedTranscriptHash: state.context.confirmedTranscriptHash,
            extensions: applied.extensions)
        var updatePath: UpdatePath?
        if withPath {
            guard let ownNode = tree.leafNode(at: ownLeaf) else { throw .notAMember }
            do {
                let generated = try tree.generateUpdatePath(
                    sender: ownLeaf, leafNode: ownNode, signatureKey: signingKey, groupID: groupID)
                provisional.treeHash = tree.treeHash
                updatePath = try tree.encryptUpdatePath(
                    generated, groupContext: provisional.encoded(), excluding: Set(applied.added.map(\.leafIndex)))
                committerPath = generated
            } catch {
                throw .tree(error)
            }
        }
        let content = FramedContent(
            groupID: groupID, epoch: epoch, sender: sender, authenticatedData: authenticatedData,
            content: .commit(Commit(proposals: list, path: updatePath)))
        var privateTree = self.privateTree
        if let committerPath { privateTree = committerPath.privateState } else { privateTree.prune(to: tree) }
        let finished = try finishCommit(
            content: content, provisional: provisional, tree: tree, initSecret: epochSecrets.initSecret,
            commitSecret: committerPath?.commitSecret, psks: applied.psks, membershipKey: epochSecrets.membershipKey,
            wireFormat: configuration.wireFormatPolicy.outgoingWireFormat)
        var next = self
        try next.enter(finished.state, secrets: finished.secrets, pskSecret: finished.pskSecret, privateTree: privateTree)
        let groupInfo = try next.groupInfo(confirmationTag: finished.confirmationTag)
        let welcome = try next.welcome(for: applied.added, groupInfo: groupInfo, psks: applied.psks, path: committerPath)
        let staged = StagedCommit(
            content: finished.content, commit: Commit(proposals: list, path: updatePath), committerLeaf: ownLeaf,
            isExternal: false, proposals: resolved, applied: applied, tree: tree, provisionalContext: provisional,
            context: finished.state.context, interimTranscriptHash: finished.state.interimTranscriptHash)
        return CommitOutput(
            commit: finished.message, welcome: welcome.map { MLSMessage(body: .welcome($0)) },
            groupInfo: groupInfo, group: next, summary: CommitSummary(staged),
            sealing: CommitSealing(committer: self, initSecret: epochSecrets.initSecret,
                                   commitSecret: committerPath?.commitSecret, confirmationTag: finished.confirmationTag,
                                   recipients: CommitSealing.recipients(of: updatePath, path: committerPath, tree: tree,
                                                                        excluding: Set(applied.added.map(\.leafIndex)))))
    }

    /// Adds the members of `keyPackages` in one commit, with a Welcome for them.
    public func add(keyPackages: [KeyPackage], includePath: Bool = true, now: UInt64? = nil) throws(GroupError) -> CommitOutput {
        try commit(proposals: keyPackages.map { .add($0) }, includePending: false, includePath: includePath, now: now)
    }

    /// Removes the members at `leaves` in one commit.
    public func remove(leaves: [UInt32]) throws(GroupError) -> CommitOutput {
        try commit(proposals: leaves.map { .remove(removed: $0) }, includePending: false)
    }

    /// A self-update: an empty commit with a fresh path (RFC 9420 §12.4).
    public func update() throws(GroupError) -> CommitOutput {
        try commit(includePending: false, includePath: true)
    }

    /// A standalone Remove proposal (another member commits it), cached here as well.
    public mutating func proposeRemove(leaf: UInt32, authenticatedData: [UInt8] = []) throws(GroupError) -> MLSMessage {
        try propose(.remove(removed: leaf), authenticatedData: authenticatedData)
    }

    /// Asks the group to remove this member.
    public mutating func proposeSelfRemove(authenticatedData: [UInt8] = []) throws(GroupError) -> MLSMessage {
        try proposeRemove(leaf: ownLeaf, authenticatedData: authenticatedData)
    }

    /// A standalone Add proposal.
    public mutating func proposeAdd(keyPackage: KeyPackage, authenticatedData: [UInt8] = []) throws(GroupError) -> MLSMessage {
        try propose(.add(keyPackage), authenticatedData: authenticatedData)
    }

    /// Signs a proposal as the wire format policy says (a PublicMessage with the membership tag, or
    /// a PrivateMessage under the handshake ratchet) and caches it for this epoch.
    public mutating func propose(_ proposal: Proposal, authenticatedData: [UInt8] = []) throws(GroupError) -> MLSMessage {
        try checkActive()
        let content = FramedContent(groupID: groupID, epoch: epoch, sender: .member(leafIndex: ownLeaf),
                                    authenticatedData: authenticatedData, content: .proposal(proposal))
        let authenticated: AuthenticatedContent
        do {
            authenticated = try AuthenticatedContent.signed(
                wireFormat: configuration.wireFormatPolicy.outgoingWireFormat, content: content, signingKey: signingKey,
                context: state.context, suite: state.suite)
        } catch {
            throw GroupState.map(error)
        }
        var ratchets = secretTree
        let message = try frameHandshake(authenticated, membershipKey: epochSecrets.membershipKey, secretTree: &ratchets)
        try state.cacheProposal(authenticated)
        secretTree = ratchets
        if authenticated.wireFormat == .privateMessage { noteGeneration(leaf: ownLeaf, handshake: true) }
        return message
    }

    /// Signs the commit for `wireFormat` (which the signature and the confirmed transcript hash
    /// cover), computes the transcript hashes, the next epoch's secrets and the confirmation tag,
    /// and frames the commit as a PublicMessage or a PrivateMessage (RFC 9420 §12.4.1 steps 9–14).
    func finishCommit(
        content: FramedContent, provisional: GroupContext, tree: PublicRatchetTree, initSecret: [UInt8],
        commitSecret: [UInt8]?, psks: [PreSharedKeyID], membershipKey: [UInt8]?, wireFormat: WireFormat = .publicMessage
    ) throws(GroupError) -> (message: MLSMessage, content: AuthenticatedContent, state: GroupState,
                             secrets: EpochSecrets, pskSecret: [UInt8]?, confirmationTag: [UInt8]) {
        let suite = state.suite
        var authenticated: AuthenticatedContent
        do {
            authenticated = try AuthenticatedContent.signed(
                wireFormat: wireFormat, content: content, signingKey: signingKey, context: state.context, suite: suite)
        } catch {
            throw GroupState.map(error)
        }
        var context = provisional
        context.confirmedTranscriptHash = TranscriptHashes.confirmed(
            suite: suite, interimBefore: state.interimTranscriptHash, commit: authenticated)
        let pskSecret = try pskSecret(for: psks)
        let secrets: EpochSecrets
        let tag: [UInt8]
        do {
            secrets = try EpochSecrets(suite: suite, initSecret: initSecret, commitSecret: commitSecret,
                                       pskSecret: pskSecret, groupContext: context.encoded())
            tag = try suite.mac(key: secrets.confirmationKey, data: context.confirmedTranscriptHash)
        } catch {
            throw .crypto(error)
        }
        authenticated.auth.confirmationTag = tag
        // A sealed commit takes the committer's next handshake key of this epoch; the committer
        // leaves the epoch with it, so the step is not kept.
        var handshakeRatchets = secretTree
        let message = try frameHandshake(authenticated, membershipKey: membershipKey, secretTree: &handshakeRatchets)
        let interim = TranscriptHashes.interim(suite: suite, confirmed: context.confirmedTranscriptHash, confirmationTag: tag)
        return (message, authenticated, GroupState(suite: suite, context: context, tree: tree, interimTranscriptHash: interim),
                secrets, pskSecret, tag)
    }
}
