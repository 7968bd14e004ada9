import Basics
import DeliveryStore
import Foundation
import MLS

/// The sealed path of a commit-carrying method (issue 17; docs/sealed-commits.md): a commit sent as a
/// PrivateMessage, which the service cannot read, is accepted only in a sealed conversation and only
/// with the GroupInfo of the epoch it creates. `SealedCommitVerifier` checks it on public data (the
/// header, the GroupInfo, the new tree in full, the change leaf by leaf); then the service's own rules
/// of the public path, on what the GroupInfo shows: the committer (its signer) is the caller, no leaf
/// changes its DID, each added leaf is the leaf node of a KeyPackage its DID published and has not
/// consumed, and the Welcome addresses exactly those; every leave request kept for the epoch has its
/// leaf blanked. The method's own checks (who may remove whom, what an addMembers call must add)
/// run on the result as for a public commit.
struct SealedCommitPipeline {
    let pipeline: CommitPipeline

    /// What every answer about the sealed path says of its limits.
    static let unverifiable = "the service cannot check that the encrypted commit matches that GroupInfo, "
        + "the transcript hash chain or the confirmation tag: members do (docs/sealed-commits.md)"

    func validate(_ request: CommitPipeline.Request) throws -> CommitPipeline.Validated {
        let limits = pipeline.env.limits
        let message = try MLSInput.message(request.commit, limits: limits.decodingLimits, error: .invalidCommit, what: "commit")
        guard case .privateMessage(let sealed) = message.body else { throw XRPCError.internalError }
        let prepared = try pipeline.prepare(request, groupID: sealed.groupID, epoch: sealed.epoch)
        guard prepared.convo.handshake == .sealed else {
            throw XRPCError(400, .invalidCommit, "this conversation was created with handshake \"public\": its commits must be "
                            + "PublicMessages, which the service validates in full (a conversation created with handshake "
                            + "\"sealed\" takes PrivateMessage commits)")
        }
        guard let groupInfoBytes = request.groupInfo else {
            throw XRPCError(400, .groupInfoRequired, "a sealed (PrivateMessage) commit needs the GroupInfo of the epoch it creates, "
                            + "with the ratchet_tree extension: the service checks the commit through it alone, and even then "
                            + Self.unverifiable)
        }
        let groupInfo = try MLSInput.groupInfo(groupInfoBytes, limits: limits.decodingLimits)
        // Cheap, before any signature or hash: the GroupInfo's signer is taken as the committer, and
        // its tree (decoded once, then handed to the verifier) holds at most the member limit.
        if let signer = prepared.current.tree.leafNode(at: groupInfo.signer),
           MemberIdentity.did(of: signer.credential) != request.caller.rawValue {
            throw XRPCError.forbidden(.notCommitter, "the GroupInfo is signed by another member's leaf")
        }
        let tree = try Self.tree(of: groupInfo, limits: limits)
        let transition: VerifiedSealedTransition
        do {
            transition = try SealedCommitVerifier(current: prepared.current, limits: limits.treeLimits)
                .verify(commit: message, groupInfo: groupInfo, ratchetTree: tree, now: UInt64(Date().timeIntervalSince1970))
        } catch {
            throw error.xrpcError
        }
        guard let committerDID = MemberIdentity.did(of: transition.committerLeafNode.credential),
              committerDID == request.caller.rawValue else {
            throw XRPCError.forbidden(.notCommitter, "the GroupInfo is signed by another member's leaf")
        }
        let keyPackages = try addedKeyPackages(transition.added, welcome: request.welcome)
        let summary: CommitSummary
        do { summary = try transition.commitSummary(keyPackages: keyPackages) } catch { throw error.xrpcError }
        try CommitIntegrity.checkCredentialContinuity(from: prepared.current, to: transition.next, summary: summary)
        let covered = try CommitIntegrity.coveredProposals(prepared.pending, referenced: [], summary: summary)
        return try pipeline.finish(prepared, next: transition.next, summary: summary, committerDID: committerDID,
                                   welcome: request.welcome, covered: covered)
    }

    /// The GroupInfo's ratchet_tree extension: required, as the service stores the GroupInfo and
    /// serves it to external joiners; decoded within the tree limits (its width and at most
    /// `maxMembers` occupied leaves, checked before anything is built from it).
    static func tree(of groupInfo: GroupInfo, limits: ServiceLimits) throws(XRPCError) -> RatchetTree {
        guard let ext = groupInfo.extensions.first(ofType: .ratchetTree) else {
            throw XRPCError(400, .invalidGroupInfo, "sealed commit: the GroupInfo must carry the new tree in its ratchet_tree "
                            + "extension (RFC 9420 §12.4.3.3), which the service checks and serves to joiners")
        }
        let tree: RatchetTree
        do { tree = try ext.decodeRatchetTree(limits: limits.treeLimits) } catch .tooManyElements {
            throw XRPCError(400, .invalidGroupInfo, limits.treeBoundDescription)
        } catch {
            throw XRPCError(400, .invalidGroupInfo, "sealed commit: the GroupInfo's ratchet_tree extension is not a valid tree")
        }
        do { try limits.treeLimits.check(tree) } catch .tooManyMembers {
            throw XRPCError(400, .tooManyMembers, "a conversation has at most \(limits.maxMembers) members")
        } catch {
            throw XRPCError(400, .invalidGroupInfo, limits.treeBoundDescription)
        }
        return tree
    }

    /// The KeyPackages the added leaves came from. The sealed commit's Adds are encrypted, so the
    /// Welcome names them: it must address exactly as many KeyPackages as leaves were added (checked
    /// before any lookup), each a stored package whose leaf node one added leaf is (`PublishedLeaves`);
    /// `finish` routes the Welcome to them and the store consumes them.
    func addedKeyPackages(_ added: [VerifiedSealedTransition.AddedLeaf], welcome: [UInt8]?) throws -> [UInt32: KeyPackage] {
        guard !added.isEmpty else { return [:] }
        guard let welcome else { throw XRPCError(400, .invalidWelcome, "a commit that adds members needs a welcomeMessage") }
        // Decoded with room for no more entries than leaves were added.
        let refs = try MLSInput.welcome(welcome, limits: DecodingLimits(maxVectorElements: added.count)).secrets.map(\.newMember)
        guard refs.count == added.count, Set(refs).count == refs.count else {
            throw XRPCError(400, .invalidWelcome, "the Welcome addresses \(refs.count) KeyPackages, the commit adds \(added.count) leaves")
        }
        let matches = try PublishedLeaves.match(added.map { ($0.leafIndex, $0.leafNode) }, refs: refs, store: pipeline.env.store,
                                                error: .invalidCommit, naming: "the Welcome must address it")
        var keyPackages: [UInt32: KeyPackage] = [:]
        for match in matches { keyPackages[match.leaf] = match.keyPackage }
        return keyPackages
    }
}
