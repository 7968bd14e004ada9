import Primitives

/// What a delivery service without any group secret can check of a commit it cannot read: a
/// PrivateMessage commit (RFC 9420 §6.3, OpenMLS's pure-ciphertext policy) comes with the GroupInfo
/// of the epoch it creates (§12.4.3), and that GroupInfo and its tree are public. The verifier
/// checks the PrivateMessage header, the GroupInfo (group, suite, epoch + 1, signed by the member
/// who committed), the new tree in full (§12.4.3.1) and its difference from the current tree leaf
/// by leaf, and returns a `VerifiedSealedTransition` with the new public state. docs/sealed-commits.md
/// lists every check with its section, and what stays unverifiable.
///
/// Cheap refusals come first: header and GroupContext fields, one signature (the GroupInfo's), the
/// tree's shape and hash, the tree rebuild (hashes only), and last the full tree validation (a
/// signature per leaf).
public struct SealedCommitVerifier: Sendable {
    /// The group's public state in the epoch the commit is sent in.
    public let current: PublicGroup
    /// The largest new tree the verifier builds: a wider one is refused from its node count.
    public let limits: TreeLimits

    public init(current: PublicGroup, limits: TreeLimits = .unlimited) {
        self.current = current
        self.limits = limits
    }

    /// A sealed commit, or an external commit (which is always a PublicMessage, §12.4.3.2), with
    /// the GroupInfo of the epoch it creates and, when that has no ratchet_tree extension, the tree.
    /// A member's PublicMessage commit is refused with `notSealed`: `PublicGroup.validateAndApply`
    /// checks it in full.
    public func verify(
        commit message: MLSMessage, groupInfo: GroupInfo, ratchetTree: RatchetTree? = nil, now: UInt64? = nil
    ) throws(SealedCommitError) -> VerifiedSealedTransition {
        guard message.version == .mls10 else { throw .groupInfoMismatch("the message's protocol version") }
        switch message.body {
        case .privateMessage(let sealed):
            return try verify(commit: sealed, groupInfo: groupInfo, ratchetTree: ratchetTree, now: now)
        case .publicMessage(let external) where external.content.sender == .newMemberCommit:
            return try verify(externalCommit: external, groupInfo: groupInfo, ratchetTree: ratchetTree, now: now)
        default:
            throw .notSealed
        }
    }

    /// RFC 9420 §6.3: a sealed proposal's header. Nothing else of it is public.
    public func verify(proposal message: PrivateMessage) throws(SealedCommitError) -> VerifiedSealedProposal {
        try checkHeader(message, contentType: .proposal)
        return VerifiedSealedProposal(message: message)
    }

    /// A member's commit as a PrivateMessage. The GroupInfo's signer is taken as the committer: a
    /// leaf that a member of the same credential held in the current tree (a PrivateMessage is
    /// sealed under the epoch's secret tree, so only a member can send one, §6.3).
    public func verify(
        commit message: PrivateMessage, groupInfo: GroupInfo, ratchetTree: RatchetTree? = nil, now: UInt64? = nil
    ) throws(SealedCommitError) -> VerifiedSealedTransition {
        try checkHeader(message, contentType: .commit)
        try checkContext(of: groupInfo)
        let wire = try Self.wireTree(of: groupInfo, ratchetTree, limits: limits)
        // One signature before any hashing: only a member can make the verifier hash a tree.
        let signer = groupInfo.signer
        guard let before = current.tree.leafNode(at: signer), let after = Self.leafNode(in: wire, at: signer),
              before.credential == after.credential else {
            throw .signerNotAMember(leaf: signer)
        }
        do { try groupInfo.verifySignature(publicKey: after.signatureKey, suite: current.cipherSuite) } catch {
            throw .invalidGroupInfoSignature
        }
        let newTree: PublicRatchetTree
        do { newTree = try PublicRatchetTree(suite: current.cipherSuite, tree: wire, limits: limits) } catch { throw .invalidTree(error) }
        guard newTree.treeHash == groupInfo.groupContext.treeHash else { throw .treeHashMismatch }
        let required = try Self.checkContextExtensions(groupInfo.groupContext.extensions)
        let changedExtensions = groupInfo.groupContext.extensions == current.groupContext.extensions
            ? nil : groupInfo.groupContext.extensions

        let transition = try SealedTreeTransition(from: current.tree, to: newTree, committer: .member(leaf: signer))
        // §12.4: a GroupContextExtensions proposal requires a path.
        if changedExtensions != nil, !transition.committerPathUpdated { throw .pathRequired }
        if let now {
            for entry in transition.added {
                guard case .keyPackage(let lifetime) = entry.leafNode.leafNodeSource,
                      lifetime.notBefore <= now, now <= lifetime.notAfter else { throw .addedLeafExpired(leaf: entry.leafIndex) }
            }
        }

        // §12.4.3.1 in full: every leaf (§7.3), parent hashes (§7.9.2), keys, unmerged leaves.
        let validated: PublicRatchetTree
        do {
            validated = try PublicGroup.importTree(groupInfo: groupInfo, ratchetTree: wire, suite: current.cipherSuite, limits: limits)
        } catch .tree(let error) {
            throw .invalidTree(error)
        } catch {
            throw .invalidGroupInfo(error)
        }
        if let changedExtensions {
            // §12.1.7: every member supports the new extensions and any new required_capabilities.
            do {
                try GroupState.checkCapabilities(of: validated, extensions: changedExtensions, required: required, checkExtensions: true)
            } catch {
                throw .unsupportedExtensions("a member does not support the new GroupContext extensions")
            }
        }
        let suite = current.cipherSuite
        let interim = TranscriptHashes.interim(
            suite: suite, confirmed: groupInfo.groupContext.confirmedTranscriptHash, confirmationTag: groupInfo.confirmationTag)
        let next = PublicGroup(state: GroupState(suite: suite, context: groupInfo.groupContext, tree: validated,
                                                 interimTranscriptHash: interim))
        return VerifiedSealedTransition(
            committer: transition.committer, committerLeafNode: transition.committerLeafNode,
            committerPathUpdated: transition.committerPathUpdated, removed: transition.removed, added: transition.added,
            changedExtensions: changedExtensions, groupInfo: groupInfo, next: next, contentVerified: false)
    }

    /// An external commit (a PublicMessage from new_member_commit, §12.4.3.2) with the joiner's
    /// GroupInfo of the new epoch: the commit is validated in full as `PublicGroup` does, the
    /// GroupInfo must be signed by the joiner's new leaf and describe exactly the epoch the commit
    /// creates, and the change is classified as for a sealed commit.
    public func verify(
        externalCommit message: PublicMessage, groupInfo: GroupInfo, ratchetTree: RatchetTree? = nil, now: UInt64? = nil
    ) throws(SealedCommitError) -> VerifiedSealedTransition {
        guard message.content.sender == .newMemberCommit else { throw .notSealed }
        let next: PublicGroup
        do { next = try current.validateAndApply(commit: message, now: now) } catch { throw .invalidCommit(error) }
        guard let summary = next.lastCommit, summary.isExternal else { throw .notSealed }
        guard groupInfo.signer == summary.committerLeaf else { throw .signerNotAMember(leaf: groupInfo.signer) }
        do { try next.verify(groupInfo: groupInfo) } catch { throw .invalidGroupInfo(error) }
        if let ratchetTree, ratchetTree != next.tree.ratchetTree {
            throw .invalidExternalJoin("the tree given differs from the one the commit makes")
        }
        let transition = try SealedTreeTransition(
            from: current.tree, to: next.tree, committer: .externalJoiner(leaf: summary.committerLeaf))
        let extensions = next.groupContext.extensions
        return VerifiedSealedTransition(
            committer: transition.committer, committerLeafNode: transition.committerLeafNode,
            committerPathUpdated: transition.committerPathUpdated, removed: transition.removed, added: transition.added,
            changedExtensions: extensions == current.groupContext.extensions ? nil : extensions,
            groupInfo: groupInfo, next: next, contentVerified: true)
    }

    /// §6.3: the PrivateMessage's clear header names this group, the current epoch and the content type.
    func checkHeader(_ message: PrivateMessage, contentType: ContentType) throws(SealedCommitError) {
        guard message.groupID == current.groupID else { throw .wrongGroupID }
        guard message.epoch == current.epoch else { throw .wrongEpoch(expected: current.epoch, actual: message.epoch) }
        guard message.contentType == contentType else { throw .unexpectedContentType(message.contentType) }
    }

    /// §12.4.3.1 and §8.1: the GroupInfo's GroupContext is this group's, in its protocol version and
    /// suite, one epoch on; the confirmation tag and transcript hash have the suite's size (§8.2).
    func checkContext(of groupInfo: GroupInfo) throws(SealedCommitError) {
        let context = groupInfo.groupContext
        guard context.groupID == current.groupID else { throw .wrongGroupID }
        guard context.version == current.groupContext.version else { throw .groupInfoMismatch("protocol version") }
        guard context.cipherSuite == current.cipherSuite.rawValue else { throw .groupInfoMismatch("cipher suite") }
        guard current.epoch < UInt64.max, context.epoch == current.epoch + 1 else {
            throw .epochNotNext(expected: current.epoch &+ 1, actual: context.epoch)
        }
        let nh = current.cipherSuite.nh
        guard context.confirmedTranscriptHash.count == nh, groupInfo.confirmationTag.count == nh else {
            throw .groupInfoMismatch("confirmed transcript hash or confirmation tag is not Nh bytes")
        }
    }

    /// The leaf node at `leaf` of a wire tree, before it is imported.
    static func leafNode(in wire: RatchetTree, at leaf: UInt32) -> LeafNode? {
        let index = 2 * Int(leaf)
        guard index < wire.nodes.count, case .leaf(let node)? = wire.nodes[index] else { return nil }
        return node
    }

    /// The new tree: given separately, or in the GroupInfo's ratchet_tree extension (§12.4.3.3).
    static func wireTree(of groupInfo: GroupInfo, _ ratchetTree: RatchetTree?, limits: TreeLimits) throws(SealedCommitError) -> RatchetTree {
        if let ratchetTree { return ratchetTree }
        guard let ext = groupInfo.extensions.first(ofType: .ratchetTree) else {
            throw .invalidGroupInfo(.invalidGroupInfo("no ratchet tree"))
        }
        do { return try ext.decodeRatchetTree(limits: limits) } catch { throw .invalidGroupInfo(.decoding(error)) }
    }

    /// §13.4 and the known GroupContext extensions read strictly (§11.1 required_capabilities,
    /// §12.1.8.1 external_senders) by `GroupState.checkContextExtensions`: a malformed one is
    /// refused, never read as absent.
    static func checkContextExtensions(_ extensions: [Extension]) throws(SealedCommitError) -> RequiredCapabilities? {
        do { return try GroupState.checkContextExtensions(extensions) } catch {
            switch error {
            case .malformedExtension(.requiredCapabilities): throw .unsupportedExtensions("malformed required_capabilities")
            case .malformedExtension(.externalSenders): throw .unsupportedExtensions("malformed external_senders")
            default: throw .unsupportedExtensions("repeated extension type")
            }
        }
    }
}
