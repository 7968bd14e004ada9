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
        /// The stored public state, with the kept PublicMessage proposals recorded (so that a commit
        /// may refer to them).
        var current: PublicGroup
        var pending: [PendingProposal]
        /// DIDs with a leave request pending (a self-Remove, public or sealed).
        var pendingLeaves: Set<String>
        var commitEpoch: Int64
    }

    /// The commit's group and epoch (from its clear header) against the stored conversation: another
    /// group is 400; RFC 9420 §14, one commit per epoch: one made in the epoch just closed lost the
    /// race (409 CommitConflict), any other epoch is 409 EpochMismatch; a frozen conversation takes
    /// nothing (409 GroupFrozen).
    func prepare(_ request: Request, groupID: [UInt8], epoch: UInt64) throws -> Prepared {
        guard Hex.encode(groupID) == request.convoID else {
            throw XRPCError(400, .invalidCommit, "the commit is for another group")
        }
        let convo = try env.store.loadConvo(request.convoID)
        let commitEpoch = Int64(clamping: epoch)
        if commitEpoch != convo.epoch {
            if commitEpoch == convo.epoch - 1 { throw DeliveryStoreError.commitConflict(current: convo.epoch) }
            throw DeliveryStoreError.epochMismatch(current: convo.epoch)
        }

        var current: PublicGroup
        do { current = try PublicGroup(serialized: convo.publicState) } catch {
            env.log.error("stored public state unreadable", ["convo": request.convoID])
            throw XRPCError.internalError
        }
        if convo.frozenEpoch != nil { throw DeliveryStoreError.groupFrozen }
        let pending = try env.store.pendingProposals(convoID: request.convoID, epoch: convo.epoch)
        var pendingLeaves: Set<String> = []
        for proposal in pending {
            if proposal.kind == "remove" { pendingLeaves.insert(proposal.senderDID.rawValue) }
            // Each was checked by leaveConvo in this epoch: a PublicMessage records; a sealed one
            // (a PrivateMessage) has nothing public to record, and is covered by its leaf alone.
            switch (try? MLSMessage(decoding: proposal.proposal))?.body {
            case .publicMessage(let stored)? where (try? current.recordProposal(stored)) != nil: continue
            case .privateMessage?: continue
            default:
                env.log.error("a kept proposal no longer records", ["convo": request.convoID])
                throw XRPCError.internalError
            }
        }
        return Prepared(convo: convo, current: current, pending: pending, pendingLeaves: pendingLeaves, commitEpoch: commitEpoch)
    }

    /// The validated commit as the store takes it: the member rows of the new tree (within the
    /// member limit), the KeyPackages the added leaves came from (consumed), the DIDs added and
    /// removed, and the Welcome routed to exactly the added KeyPackages.
    func finish(_ prepared: Prepared, next: PublicGroup, summary: CommitSummary, committerDID: String, welcome: [UInt8]?,
                covered: [[UInt8]]) throws -> Validated {
        let members = try MemberIdentity.memberLeaves(next.members, error: .invalidCommit)
        guard members.count <= env.limits.maxMembers else {
            throw XRPCError(400, .tooManyMembers, "a conversation has at most \(env.limits.maxMembers) members")
        }

        var consumed: [KeyPackageUse] = []
        var addedDIDs: [String] = []
        var ownerByRef: [[UInt8]: String] = [:]
        for added in summary.added {
            guard let did = MemberIdentity.did(of: added.keyPackage.leafNode.credential) else {
                throw XRPCError(400, .invalidCommit, "an added member's credential is not a DID")
            }
            consumed.append(KeyPackageUse(ref: added.keyPackageRef, ownerDID: did))
            ownerByRef[added.keyPackageRef] = did
            if !addedDIDs.contains(did) { addedDIDs.append(did) }
        }
        var removedDIDs: [String] = []
        for removed in summary.removed {
            if let did = MemberIdentity.did(of: removed.leafNode.credential), !removedDIDs.contains(did) { removedDIDs.append(did) }
        }

        let welcomes = try welcomeDeliveries(welcome, ownerByRef: ownerByRef, suite: next.cipherSuite.rawValue)
        return Validated(convo: prepared.convo, next: next, summary: summary, commitEpoch: prepared.commitEpoch,
                         committerDID: committerDID, members: members, addedDIDs: addedDIDs, removedDIDs: removedDIDs,
                         consumedKeyPackages: consumed, welcomes: welcomes, coveredProposalRefs: covered,
                         pendingLeaves: prepared.pendingLeaves, freezes: summary.reInit != nil)
    }
}
