import Primitives

/// A group as an observer without any secret follows it, such as the delivery service (RFC 9420
/// §12.4.2 minus decryption; spec MLS.md "What the service validates"). It checks every commit's
/// signature, proposals, UpdatePath public keys and parent hashes, and tracks the tree, GroupContext
/// and transcript hashes. It cannot check membership tags or confirmation tag MACs.
public struct PublicGroup: Sendable {
    public private(set) var state: GroupState
    /// What the commit that produced this epoch changed; nil for a group built from a GroupInfo or
    /// restored from storage.
    public private(set) var lastCommit: CommitSummary?

    public init(state: GroupState) {
        self.state = state
        lastCommit = nil
    }

    /// From a GroupInfo and the tree in its ratchet_tree extension or given separately (RFC 9420
    /// §12.4.3.1): the tree validates and hashes to group_context.tree_hash, and the signer's leaf
    /// signed the GroupInfo. The interim transcript hash comes from the GroupInfo's confirmation tag.
    /// A tree beyond `limits` is refused before it is built.
    public init(groupInfo: GroupInfo, ratchetTree: RatchetTree? = nil, limits: TreeLimits = .unlimited) throws(GroupError) {
        let context = groupInfo.groupContext
        guard context.version == .mls10 else { throw .invalidGroupInfo("protocol version") }
        guard let suite = CipherSuite(rawValue: context.cipherSuite) else { throw .cipherSuiteMismatch }
        let tree = try Self.importTree(groupInfo: groupInfo, ratchetTree: ratchetTree, suite: suite, limits: limits)
        guard let signer = tree.leafNode(at: groupInfo.signer) else { throw .invalidGroupInfo("signer is not a member") }
        do { try groupInfo.verifySignature(publicKey: signer.signatureKey, suite: suite) } catch { throw .welcome(error) }
        let interim = TranscriptHashes.interim(
            suite: suite, confirmed: context.confirmedTranscriptHash, confirmationTag: groupInfo.confirmationTag)
        self.init(state: GroupState(suite: suite, context: context, tree: tree, interimTranscriptHash: interim))
    }

    /// RFC 9420 §13.4: no extension type twice (so one ratchet_tree, one external_pub); §12.4.3.2: an
    /// external_pub, when present, is a key an external joiner can encapsulate to (RFC 9180 §7.1.4).
    /// Whether it is the epoch's real external key needs the epoch secret: members check that.
    static func checkExtensions(of groupInfo: GroupInfo, suite: CipherSuite) throws(GroupError) {
        guard !groupInfo.extensions.hasDuplicateTypes else { throw .invalidGroupInfo("repeated extension type") }
        if let ext = groupInfo.extensions.first(ofType: .externalPub) {
            guard let key = try? ext.decodeExternalPub() else { throw .malformedExtension(.externalPub) }
            guard suite.kem.isValidPublicKey(key) else { throw .invalidGroupInfo("external_pub is not a valid key") }
        }
    }

    /// The tree of a GroupInfo, validated against its context (RFC 9420 §12.4.3.1).
    static func importTree(
        groupInfo: GroupInfo, ratchetTree: RatchetTree?, suite: CipherSuite, limits: TreeLimits
    ) throws(GroupError) -> PublicRatchetTree {
        try checkExtensions(of: groupInfo, suite: suite)
        let wire: RatchetTree
        if let ratchetTree {
            wire = ratchetTree
        } else if let ext = groupInfo.extensions.first(ofType: .ratchetTree) {
            do { wire = try ext.decodeRatchetTree(limits: limits) } catch { throw .decoding(error) }
        } else {
            throw .invalidGroupInfo("no ratchet tree")
        }
        let context = groupInfo.groupContext
        let required = try GroupState.checkContextExtensions(context.extensions)
        do {
            let tree = try PublicRatchetTree(suite: suite, tree: wire, limits: limits)
            try tree.validate(groupID: context.groupID, expectedTreeHash: context.treeHash, requiredCapabilities: required)
            return tree
        } catch {
            throw .tree(error)
        }
    }

    public var groupID: [UInt8] { state.context.groupID }
    public var epoch: UInt64 { state.context.epoch }
    public var cipherSuite: CipherSuite { state.suite }
    public var groupContext: GroupContext { state.context }
    public var tree: PublicRatchetTree { state.tree }
    public var treeHash: [UInt8] { state.tree.treeHash }
    public var interimTranscriptHash: [UInt8] { state.interimTranscriptHash }
    public var members: [GroupMember] { state.tree.groupMembers }
    /// Standalone proposals recorded this epoch.
    public var pendingProposals: [CachedProposal] { state.proposals }

    /// Records a standalone proposal (a PublicMessage) so that a commit may cover it by reference.
    /// Its signature is verified; its content is checked when a commit covers it.
    @discardableResult
    public mutating func recordProposal(_ message: PublicMessage) throws(GroupError) -> CachedProposal {
        guard message.content.contentType == .proposal else { throw .unexpectedMessage("not a proposal") }
        try checkMembershipTagShape(message)
        let authenticated = try state.verifySignature(of: message)
        return try state.cacheProposal(authenticated)
    }

    /// Restores standalone proposals of this epoch that `recordProposal` verified earlier, from what
    /// the caller kept of each (its ref, sender and proposal): no signature is checked again, as for
    /// the proposals in a serialized state. Refs already recorded are skipped, in O(n) for the batch.
    public mutating func restoreRecordedProposals(_ proposals: [CachedProposal]) {
        state.restoreProposals(proposals)
    }

    /// RFC 9420 §12.4.2 without secrets: group and epoch, sender, signature over FramedContentTBS
    /// with the current GroupContext, the §12.2 rules, proposals applied to a copy of the tree, the
    /// UpdatePath's leaf and parent-hash chain, the tree hash, and both transcript hashes. Returns the
    /// next epoch's state; `self` is unchanged. `now` checks added KeyPackages' lifetimes. Added
    /// KeyPackages whose KeyPackageRef is in `trustedKeyPackageRefs` (the service validated those
    /// exact bytes at publication) skip their two signature checks; every other rule still applies.
    public func validateAndApply(
        commit message: PublicMessage, now: UInt64? = nil, trustedKeyPackageRefs: Set<[UInt8]> = []
    ) throws(GroupError) -> PublicGroup {
        guard message.content.contentType == .commit else { throw .unexpectedMessage("not a commit") }
        try checkMembershipTagShape(message)
        let authenticated = try state.verifySignature(of: message)
        let staged = try state.stage(commit: authenticated, now: now, trustedKeyPackageRefs: trustedKeyPackageRefs)
        var next = PublicGroup(state: staged.nextState)
        next.lastCommit = CommitSummary(staged)
        return next
    }

    /// RFC 9420 §6.2: a member's PublicMessage carries membership_tag = MAC(membership_key, …), Nh
    /// bytes. Its value needs the membership key; its length does not.
    func checkMembershipTagShape(_ message: PublicMessage) throws(GroupError) {
        guard case .member = message.content.sender else { return }
        guard message.membershipTag?.count == state.suite.nh else { throw .invalidMembershipTag }
    }

    /// The same for an MLSMessage, which must carry a PublicMessage.
    public func validateAndApply(
        commit message: MLSMessage, now: UInt64? = nil, trustedKeyPackageRefs: Set<[UInt8]> = []
    ) throws(GroupError) -> PublicGroup {
        guard message.version == .mls10 else { throw .unexpectedMessage("protocol version") }
        guard case .publicMessage(let publicMessage) = message.body else {
            throw .unexpectedMessage("a commit the service checks must be a PublicMessage")
        }
        return try validateAndApply(commit: publicMessage, now: now, trustedKeyPackageRefs: trustedKeyPackageRefs)
    }

    /// A GroupInfo published for this epoch must carry exactly this epoch's GroupContext, be signed by
    /// a member, carry the confirmation tag that the transcript used, and, when it has a
    /// ratchet_tree extension, this tree.
    public func verify(groupInfo: GroupInfo) throws(GroupError) {
        guard groupInfo.groupContext == state.context else { throw .invalidGroupInfo("group context differs") }
        try Self.checkExtensions(of: groupInfo, suite: state.suite)
        guard let signer = state.tree.leafNode(at: groupInfo.signer) else {
            throw .invalidGroupInfo("signer is not a member")
        }
        do { try groupInfo.verifySignature(publicKey: signer.signatureKey, suite: state.suite) } catch { throw .welcome(error) }
        let interim = TranscriptHashes.interim(
            suite: state.suite, confirmed: state.context.confirmedTranscriptHash, confirmationTag: groupInfo.confirmationTag)
        guard interim == state.interimTranscriptHash else { throw .invalidGroupInfo("confirmation tag differs") }
        if let ext = groupInfo.extensions.first(ofType: .ratchetTree) {
            guard ext.extensionData == state.tree.ratchetTree.encoded() else { throw .invalidGroupInfo("ratchet tree differs") }
        }
    }

    /// RFC 9420 §10.1 and MLS.md item 1: a KeyPackage offered for publication, as an
    /// MLSMessage(KeyPackage) or a bare KeyPackage (`KeyPackage.decodePublished`).
    public static func validateKeyPackage(
        _ mlsMessage: [UInt8], expectedSuite: UInt16? = nil, now: UInt64, maxLifetime: UInt64, skew: UInt64 = 0
    ) throws(KeyPackageError) -> (keyPackage: KeyPackage, ref: [UInt8]) {
        try KeyPackage.validated(mlsMessage: mlsMessage, expectedSuite: expectedSuite, now: now,
                                 maxLifetime: maxLifetime, skew: skew)
    }
}
