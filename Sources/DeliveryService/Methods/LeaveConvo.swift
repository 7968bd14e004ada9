import Basics
import DeliveryStore
import Lexicon
import MLS

/// `blue.catbird.mls.leaveConvo`: the caller's self-Remove proposal (a PublicMessage whose sender
/// is the leaf it removes) is validated and kept until another member's commit covers it. In a
/// sealed conversation it may be a PrivateMessage (`sealedLeave`).
enum LeaveConvo {
    typealias Input = LeaveConvoInput
    typealias Output = LeaveConvoOutput

    /// A self-Remove PublicMessage is a few hundred bytes (group id ≤ 256, a signature, a membership
    /// tag); 4 KiB leaves room for authenticated data, and bounds what a commit attempt reloads:
    /// one kept proposal per leaf and epoch, each at most this (issue 14).
    static let maxProposalBytes = 4 << 10

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.leaveConvo", .procedure, maxBodySize: 16 << 10) { context in
            let input = try context.input(Input.self)
            let convoID = try InputValidation.convoID(input.convoId)
            guard let bytes = input.proposal?.bytes else {
                throw XRPCError.invalidRequest("proposal (a self-Remove PublicMessage) is required")
            }
            return .json(try leave(convoID: convoID, proposal: bytes, caller: context.caller, env: env))
        }
    }

    /// Every check of leaveConvo (also for a self-Remove published over MQTT), then the proposal kept.
    static func leave(convoID: String, proposal bytes: [UInt8], caller: DID, env: MethodEnvironment) throws -> Output {
        guard bytes.count <= maxProposalBytes else {
            throw XRPCError(400, .invalidProposal, "a self-Remove proposal is at most \(maxProposalBytes) bytes")
        }
        let convo = try env.convo(convoID, memberDID: caller)
        let members = try env.store.members(convoID: convoID)
        guard Set(members.map(\.did)).count > 1 else {
            throw XRPCError.conflict(.lastMember, "the last member cannot leave; nobody would commit the removal")
        }
        if MLSInput.isPrivateMessage(bytes) {
            return try sealedLeave(bytes, convo: convo, caller: caller, env: env)
        }
        let message = try MLSInput.publicMessage(bytes, limits: env.limits.decodingLimits, error: .invalidProposal, what: "proposal")
        guard Hex.encode(message.content.groupID) == convoID else {
            throw XRPCError(400, .invalidProposal, "the proposal is for another group")
        }
        guard Int64(clamping: message.content.epoch) == convo.epoch else {
            throw DeliveryStoreError.epochMismatch(current: convo.epoch)
        }
        guard case .proposal(.remove(let removed)) = message.content.content,
              case .member(let senderLeaf) = message.content.sender, senderLeaf == removed else {
            throw XRPCError(400, .invalidProposal, "proposal must be a Remove of the sender's own leaf")
        }
        var group = try env.publicGroup(of: convo)
        guard let leaf = group.tree.leafNode(at: senderLeaf), MemberIdentity.did(of: leaf.credential) == caller.rawValue else {
            throw XRPCError.forbidden(.notMember, "the proposal's sender leaf is not the caller's")
        }
        let cached: CachedProposal
        do { cached = try group.recordProposal(message) } catch {
            throw XRPCError(400, .invalidProposal, mlsFailureDescription(error))
        }
        _ = try env.store.addPendingProposal(PendingProposal(
            convoID: convoID, epoch: convo.epoch, ref: cached.ref, senderLeaf: senderLeaf, senderDID: caller,
            kind: "remove", proposal: bytes))
        return Output(success: true, pendingRemoval: true)
    }
}
