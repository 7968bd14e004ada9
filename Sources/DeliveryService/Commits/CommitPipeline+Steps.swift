import Basics
import DeliveryStore
import MLS

/// What the public path (`CommitPipeline.validate`) and the sealed one (`SealedCommitPipeline`)
/// share: the conversation in the commit's epoch before the commit is judged, and the facts the
/// store needs after.
extension CommitPipeline {
    /// A conversation at the epoch a commit was made in, with the leave requests kept for that epoch.
    struct Prepared {
        var convo: ConvoState
        /// The stored public state, with the kept PublicMessage proposals restored (so that a commit
        /// may refer to them).
        var current: PublicGroup
        var pending: [PendingProposal]
        /// DIDs with a leave request pending (a self-Remove, public or sealed).
        var pendingLeaves: Set<String>
        var commitEpoch: Int64
    }

    /// `openConvo` then `loadState`: for a path with no cheap refusal to make in between.
    func prepare(_ request: Request, groupID: [UInt8], epoch: UInt64) throws -> Prepared {
        let (convo, commitEpoch) = try openConvo(request, groupID: groupID, epoch: epoch)
        return try loadState(convo, commitEpoch: commitEpoch)
    }

    /// The commit's group and epoch (from its clear header) against the stored conversation, before
    /// its state is rebuilt: another group is 400; RFC 9420 §14, one commit per epoch: one made in
    /// the epoch just closed lost the race (409 CommitConflict), any other epoch is 409
    /// EpochMismatch; a frozen conversation takes nothing (409 GroupFrozen).
    func openConvo(_ request: Request, groupID: [UInt8], epoch: UInt64) throws -> (convo: ConvoState, commitEpoch: Int64) {
        guard Hex.encode(groupID) == request.convoID else {
            throw XRPCError(400, .invalidCommit, "the commit is for another group")
        }
        let convo = try env.store.loadConvo(request.convoID)
        let commitEpoch = Int64(clamping: epoch)
        if commitEpoch != convo.epoch {
            if commitEpoch == convo.epoch - 1 { throw DeliveryStoreError.commitConflict(current: convo.epoch) }
            throw DeliveryStoreError.epochMismatch(current: convo.epoch)
        }
        if convo.frozenEpoch != nil { throw DeliveryStoreError.groupFrozen }
        return (convo, commitEpoch)
    }

    /// The stored public state (within the stored-tree limits) with the leave requests kept for the
    /// epoch. Each was verified by leaveConvo when it was stored under its ref: a PublicMessage is
    /// restored from those bytes, not verified again on every commit attempt; a sealed one (a
    /// PrivateMessage) has nothing public to restore, and is covered by its leaf alone.
    func loadState(_ convo: ConvoState, commitEpoch: Int64) throws -> Prepared {
        var current = try env.publicGroup(of: convo)
        let pending = try env.store.pendingProposals(convoID: convo.convoID, epoch: convo.epoch)
        var recorded: [CachedProposal] = []
        var pendingLeaves: Set<String> = []
        for proposal in pending {
            if proposal.kind == "remove" { pendingLeaves.insert(proposal.senderDID.rawValue) }
            let message = try? MLSMessage(decoding: proposal.proposal, limits: env.limits.decodingLimits)
            switch message?.body {
            case .publicMessage(let stored)? where stored.content.contentType == .proposal:
                guard case .proposal(let body) = stored.content.content else { continue }
                recorded.append(CachedProposal(ref: proposal.ref, proposal: body, sender: stored.content.sender))
            case .privateMessage?:
                continue
            default:
                env.log.error("a kept proposal no longer decodes", ["convo": convo.convoID])
                throw XRPCError.internalError
            }
        }
        current.restoreRecordedProposals(recorded)
        return Prepared(convo: convo, current: current, pending: pending, pendingLeaves: pendingLeaves, commitEpoch: commitEpoch)
    }

    /// The validated commit as the store takes it: the member rows of the new tree (within the
    /// member limit), the KeyPackages the added leaves came from (consumed), the DIDs added and
    /// removed, and the Welcome routed to exactly the added KeyPackages (`welcomes`, when the path
    /// already routed it from the commit's Adds; else from `welcome` and the summary's adds).
    func finish(_ prepared: Prepared, next: PublicGroup, summary: CommitSummary, committerDID: String,
                welcome: [UInt8]? = nil, welcomes routed: [WelcomeDelivery]? = nil, covered: [[UInt8]]) throws -> Validated {
        let members = try MemberIdentity.memberLeaves(next.members, error: .invalidCommit)
        guard members.count <= env.limits.maxMembers else {
            throw XRPCError(400, .tooManyMembers, "a conversation has at most \(env.limits.maxMembers) members")
        }

        var consumed: [KeyPackageUse] = []
        var ownerByRef: [[UInt8]: String] = [:]
        for added in summary.added {
            guard let did = MemberIdentity.did(of: added.keyPackage.leafNode.credential) else {
                throw XRPCError(400, .invalidCommit, "an added member's credential is not a DID")
            }
            consumed.append(KeyPackageUse(ref: added.keyPackageRef, ownerDID: did))
            ownerByRef[added.keyPackageRef] = did
        }
        let addedDIDs = MemberIdentity.distinct(consumed.map(\.ownerDID))
        let removedDIDs = MemberIdentity.distinct(summary.removed.compactMap { MemberIdentity.did(of: $0.leafNode.credential) })

        let welcomes = try routed ?? welcomeDeliveries(welcome, ownerByRef: ownerByRef, suite: next.cipherSuite.rawValue)
        return Validated(convo: prepared.convo, next: next, summary: summary, commitEpoch: prepared.commitEpoch,
                         committerDID: committerDID, members: members, addedDIDs: addedDIDs, removedDIDs: removedDIDs,
                         consumedKeyPackages: consumed, welcomes: welcomes, coveredProposalRefs: covered,
                         pendingLeaves: prepared.pendingLeaves, freezes: summary.reInit != nil)
    }
}
