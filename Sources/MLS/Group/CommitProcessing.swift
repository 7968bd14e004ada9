import Primitives

/// RFC 9420 §12.4.2, shared by both faces: resolve and check the proposals, apply them to a copy
/// of the tree, merge the UpdatePath (public keys and parent hashes only), and compute the next
/// GroupContext and transcript hashes. The signature must already have been verified.
extension GroupState {
    /// `now` (seconds since 1970) checks the lifetimes of added KeyPackages; nil skips it. Added
    /// KeyPackages whose ref is in `trustedKeyPackageRefs` were verified before and skip their signatures.
    public func stage(
        commit authenticated: AuthenticatedContent, now: UInt64? = nil, trustedKeyPackageRefs: Set<[UInt8]> = []
    ) throws(GroupError) -> StagedCommit {
        guard case .commit(let commit) = authenticated.content.content else { throw .unexpectedMessage("not a commit") }
        try checkHeader(groupID: authenticated.content.groupID, epoch: authenticated.content.epoch)
        guard let tag = authenticated.auth.confirmationTag, !tag.isEmpty else { throw .missingConfirmationTag }
        // RFC 9420 §6.1: confirmation_tag = MAC(confirmation_key, …), Nh bytes; a tag of any other
        // length cannot verify, which even a party without the key can see.
        guard tag.count == suite.nh else { throw .invalidConfirmationTag }
        let sender = authenticated.content.sender
        let isExternal: Bool
        switch sender {
        case .member(let leaf):
            guard tree.leafNode(at: leaf) != nil else { throw .unknownSender(sender) }
            isExternal = false
        case .newMemberCommit:
            isExternal = true
        case .external, .newMemberProposal:
            throw .senderNotAllowed(sender, nil)
        }

        let proposals = try resolve(commit.proposals, committer: sender)
        try validateList(proposals, committer: sender, inlineOnly: true)
        var applied = try apply(proposals, now: now, trustedKeyPackageRefs: trustedKeyPackageRefs)
        // RFC 9420 §12.4: a path is required by Update, Remove, ExternalInit and GroupContextExtensions,
        // by an empty commit, and by every external commit.
        if applied.pathRequired || commit.proposals.isEmpty || isExternal, commit.path == nil { throw .pathRequired }

        var newTree = applied.tree
        var committerLeaf: UInt32
        if case .member(let leaf) = sender { committerLeaf = leaf } else { committerLeaf = 0 }
        if let path = commit.path {
            if isExternal {
                // RFC 9420 §12.4.3.2: the joiner takes the leftmost blank leaf, as an Add would.
                committerLeaf = newTree.add(path.leafNode)
            }
            let required = try Self.requiredCapabilities(in: applied.extensions)
            do {
                try newTree.mergeUpdatePath(
                    path, sender: committerLeaf, groupID: context.groupID, requiredCapabilities: required,
                    addedLeaves: Set(applied.added.map(\.leafIndex)), isNewLeaf: isExternal)
            } catch {
                throw .tree(error)
            }
            if isExternal {
                try Self.checkCapabilities(of: newTree, extensions: applied.extensions, required: required,
                                           checkExtensions: false)
            }
        }
        applied.tree = newTree

        let provisional = GroupContext(
            version: context.version, cipherSuite: context.cipherSuite, groupID: context.groupID, epoch: context.epoch + 1,
            treeHash: newTree.treeHash, confirmedTranscriptHash: context.confirmedTranscriptHash,
            extensions: applied.extensions)
        var next = provisional
        next.confirmedTranscriptHash = TranscriptHashes.confirmed(
            suite: suite, interimBefore: interimTranscriptHash, commit: authenticated)
        let interim = TranscriptHashes.interim(suite: suite, confirmed: next.confirmedTranscriptHash, confirmationTag: tag)
        return StagedCommit(
            content: authenticated, commit: commit, committerLeaf: committerLeaf, isExternal: isExternal,
            proposals: proposals, applied: applied, tree: newTree, provisionalContext: provisional, context: next,
            interimTranscriptHash: interim)
    }
}
