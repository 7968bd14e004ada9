import Basics
import DeliveryStore
import Lexicon
import MLS

extension LeaveConvo {
    /// A sealed leave request (docs/sealed-commits.md, "Sealed proposals"): in a sealed conversation
    /// the self-Remove may be a PrivateMessage, of which the service can check only the clear header
    /// (RFC 9420 §6.3: this group, the current epoch, content type proposal). It cannot read whether
    /// it is a Remove, which leaf sent it, its signature or its ProposalRef, so it does not rely on
    /// it: it takes the authenticated request itself. The caller must hold exactly one leaf (the
    /// one that leaves: with more, the service could not tell which); that leaf is kept as a pending
    /// leave, which every commit of the epoch must cover by blanking it (409 PendingProposals) and
    /// any member may commit. The PrivateMessage is delivered to the members as the proposal
    /// message, under a service-side id (a hash of its bytes) in place of the ProposalRef.
    static func sealedLeave(_ bytes: [UInt8], convo: ConvoState, caller: DID, env: MethodEnvironment) throws -> Output {
        guard convo.handshake == .sealed else {
            throw XRPCError(400, .invalidProposal, "this conversation was created with handshake \"public\": the self-Remove "
                            + "must be a PublicMessage, which the service validates")
        }
        guard case .privateMessage(let sealed) = try MLSInput.message(bytes, limits: env.limits.decodingLimits, error: .invalidProposal, what: "proposal").body else {
            throw XRPCError.internalError
        }
        let group: PublicGroup
        do { group = try PublicGroup(serialized: convo.publicState) } catch { throw XRPCError.internalError }
        do { _ = try SealedCommitVerifier(current: group).verify(proposal: sealed) } catch {
            switch error {
            case .wrongEpoch: throw DeliveryStoreError.epochMismatch(current: convo.epoch)
            case .wrongGroupID: throw XRPCError(400, .invalidProposal, "the proposal is for another group")
            default: throw XRPCError(400, .invalidProposal, "the PrivateMessage's content type is not proposal (RFC 9420 §6.3)")
            }
        }
        let leaves = group.members.filter { MemberIdentity.did(of: $0.credential) == caller.rawValue }.map(\.leafIndex)
        guard leaves.count == 1, let leaf = leaves.first else {
            throw XRPCError(400, .invalidProposal, "a sealed leave request needs the caller to hold exactly one leaf (it holds "
                            + "\(leaves.count)): the service cannot see which leaf a sealed proposal comes from; send the "
                            + "self-Remove as a PublicMessage")
        }
        let ref = group.cipherSuite.refHash(label: "catbird sealed leave request", value: bytes)
        _ = try env.store.addPendingProposal(PendingProposal(
            convoID: convo.convoID, epoch: convo.epoch, ref: ref, senderLeaf: leaf, senderDID: caller, kind: "remove", proposal: bytes))
        return Output(success: true, pendingRemoval: true)
    }
}
