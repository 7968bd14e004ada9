import Basics
import DeliveryStore
import Foundation
import MLS

/// createConvo's members come only from their own KeyPackages (docs/validation.md): every leaf of
/// the new group but the creator's must be, byte for byte, the leaf node of a KeyPackage its DID
/// published and has not used; `keyPackageHashes` and the initial commit, when sent, must name
/// exactly those packages, and the store consumes them in the creating transaction.
enum InitialMembers {
    /// The cheap refusal before the group's tree is validated (issue 14): the KeyPackages named by
    /// `keyPackageHashes`, or else by the initial commit's Adds, must be published here and unused,
    /// and no more than `maxMembers`. What is malformed is left to `keyPackages(of:…)`.
    static func checkPublished(
        hashes: [CreateConvo.KeyPackageHash]?, commit: [UInt8]?, suite: CipherSuite, limits: ServiceLimits, store: DeliveryStore
    ) throws {
        var refs: [[UInt8]] = []
        if let hashes {
            guard hashes.count <= limits.maxMembers else {
                throw XRPCError(400, .tooManyMembers, "a conversation has at most \(limits.maxMembers) members")
            }
            refs = hashes.compactMap { Hex.decode($0.hash) }
        } else if let commit, !MLSInput.isPrivateMessage(commit) {
            let message = try MLSInput.publicMessage(commit, limits: limits.decodingLimits, error: .invalidCommit, what: "commit")
            guard case .commit(let commit) = message.content.content else { return }
            refs = try AddedKeyPackages(commit, maxMembers: limits.maxMembers).refs(suite: suite).map(\.ref)
        }
        let known = try store.unconsumedKeyPackageRefs(refs)
        if let unknown = refs.first(where: { !known.contains($0) }) { throw DeliveryStoreError.keyPackageNotFound(ref: unknown) }
    }

    /// The KeyPackages of every leaf but `creatorLeaf`, checked against the stored packages. In a
    /// sealed conversation the initial commit may be a PrivateMessage (`sealedInitialCommit`), which
    /// names nothing the service can read: keyPackageHashes must then name the packages.
    static func keyPackages(
        of group: PublicGroup, creatorLeaf: UInt32, hashes: [CreateConvo.KeyPackageHash]?, commit: [UInt8]?,
        handshake: ConvoHandshake, limits: DecodingLimits, store: DeliveryStore
    ) throws -> [KeyPackageUse] {
        var named: [[UInt8]]?
        if let commit {
            if handshake == .sealed, MLSInput.isPrivateMessage(commit) {
                try sealedInitialCommit(commit, group: group, creatorLeaf: creatorLeaf, limits: limits)
            } else {
                named = try initialCommitAdds(commit, group: group, creatorLeaf: creatorLeaf, limits: limits).map(\.keyPackageRef)
            }
        }
        var claimedOwner: [[UInt8]: String] = [:]
        if let hashes {
            var refs: [[UInt8]] = []
            for entry in hashes {
                guard let ref = Hex.decode(entry.hash), !ref.isEmpty else { throw XRPCError.invalidRequest("keyPackageHashes: hash must be hex") }
                refs.append(ref)
                claimedOwner[ref] = try InputValidation.did(entry.did).rawValue
            }
            if let fromCommit = named, Set(fromCommit) != Set(refs) || fromCommit.count != refs.count {
                throw XRPCError(400, .invalidCommit, "keyPackageHashes differ from the KeyPackages the commit adds")
            }
            named = refs
        }
        let refs = named ?? []
        guard Set(refs).count == refs.count else { throw XRPCError.invalidRequest("a KeyPackage is named twice") }

        let others = group.tree.members.filter { $0.leaf != creatorLeaf }
        guard !others.isEmpty || !refs.isEmpty else { return [] }
        guard refs.count == others.count else {
            throw XRPCError(400, .invalidGroupInfo, "the group has \(others.count) member leaves besides the creator's, "
                            + "but \(refs.count) KeyPackages are named (keyPackageHashes, or a PublicMessage commit's Adds)")
        }
        var uses: [KeyPackageUse] = []
        let naming = "named by keyPackageHashes or the initial commit"
        for match in try PublishedLeaves.match(others.map { ($0.leaf, $0.node) }, refs: refs, store: store,
                                                error: .invalidGroupInfo, naming: naming) {
            if let claimed = claimedOwner[match.use.ref], claimed != match.use.ownerDID {
                throw XRPCError(400, .invalidGroupInfo, "keyPackageHashes names \(claimed) for a KeyPackage of \(match.use.ownerDID)")
            }
            uses.append(match.use)
        }
        return uses
    }

    /// A sealed initial commit (a PrivateMessage, in a sealed conversation): only its clear header
    /// is public (RFC 9420 §6.3), and it must be this group's commit of epoch 0, the GroupInfo
    /// being of epoch 1 and signed by leaf 0 (in epoch 0 the creator is the only member, so only it
    /// could seal it). Not checkable: that it adds exactly the GroupInfo's other leaves, and its
    /// place in the transcript (docs/sealed-commits.md); the members are checked from the tree and
    /// keyPackageHashes as for any creation.
    static func sealedInitialCommit(_ bytes: [UInt8], group: PublicGroup, creatorLeaf: UInt32, limits: DecodingLimits) throws(XRPCError) {
        guard case .privateMessage(let sealed) = try MLSInput.message(bytes, limits: limits, error: .invalidCommit, what: "commit").body,
              sealed.groupID == group.groupID, sealed.epoch == 0, sealed.contentType == .commit,
              group.epoch == 1, creatorLeaf == 0 else {
            throw XRPCError(400, .invalidCommit, "commit must be the creator's commit of epoch 0 (from leaf 0), with the GroupInfo of epoch 1")
        }
    }

    /// The initial commit, verified as far as anyone can: it must be the creator's commit of epoch 0
    /// (from leaf 0, the GroupInfo then being of epoch 1) without an UpdatePath, so that the
    /// one-member epoch 0 it was made in is known: the creator's leaf as the GroupInfo's tree holds
    /// it, the GroupInfo's extensions, an empty confirmed transcript hash (RFC 9420 §11). It is
    /// validated against that state by PublicGroup (signature, proposal rules, KeyPackages) and must
    /// produce exactly the GroupInfo's tree and extensions. Not checkable: its place in the transcript,
    /// which starts from the creator's secret epoch-0 confirmation tag. Returns the members it adds.
    static func initialCommitAdds(
        _ bytes: [UInt8], group: PublicGroup, creatorLeaf: UInt32, limits: DecodingLimits
    ) throws(XRPCError) -> [AddedMember] {
        let message = try MLSInput.publicMessage(bytes, limits: limits, error: .invalidCommit, what: "commit")
        guard case .commit(let commit) = message.content.content, message.content.groupID == group.groupID,
              message.content.epoch == 0, group.epoch == 1, creatorLeaf == 0,
              message.content.sender == .member(leafIndex: 0) else {
            throw XRPCError(400, .invalidCommit, "commit must be the creator's commit of epoch 0 (from leaf 0), with the GroupInfo of epoch 1")
        }
        guard commit.path == nil else {
            throw XRPCError(400, .invalidCommit, "the initial commit must not carry an UpdatePath: its signature then covers "
                            + "an epoch-0 leaf the service cannot know (send it without a path, or send keyPackageHashes alone)")
        }
        guard let creator = group.tree.leafNode(at: 0) else { throw XRPCError(400, .invalidGroupInfo, "leaf 0 is blank") }
        let suite = group.cipherSuite
        let tree = PublicRatchetTree(suite: suite, creator: creator)
        let context = GroupContext(cipherSuite: suite.rawValue, groupID: group.groupID, epoch: 0, treeHash: tree.treeHash,
                                   confirmedTranscriptHash: [], extensions: group.groupContext.extensions)
        let epochZero = PublicGroup(state: GroupState(suite: suite, context: context, tree: tree, interimTranscriptHash: []))
        let next: PublicGroup
        do {
            next = try epochZero.validateAndApply(commit: message, now: UInt64(Date().timeIntervalSince1970))
        } catch {
            throw XRPCError(400, .invalidCommit, mlsFailureDescription(error))
        }
        guard next.tree == group.tree, next.groupContext.extensions == group.groupContext.extensions,
              let summary = next.lastCommit else {
            throw XRPCError(400, .invalidCommit, "the commit does not produce the GroupInfo's tree")
        }
        return summary.added
    }
}
