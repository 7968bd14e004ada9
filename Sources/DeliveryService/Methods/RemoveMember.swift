import DeliveryStore
import Lexicon

/// `blue.catbird.mls.removeMember`: an admin's validated commit that removes exactly `targetDid`.
enum RemoveMember {
    typealias Input = RemoveMemberInput
    typealias Output = RemoveMemberOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.removeMember", .procedure, maxBodySize: 8 << 20) { context in
            let call = try CommitCall<Input>(context, env: env)
            let (input, convoID, caller) = (call.input, call.convoID, call.caller)
            let target = try InputValidation.did(input.targetDid)
            guard target != caller else {
                throw XRPCError(400, .cannotRemoveSelf, "use leaveConvo to leave a conversation")
            }
            guard try CommitAuthorization.role(env, convoID: convoID, did: caller) == .admin else {
                throw XRPCError.forbidden(.notAdmin, "only an admin may remove members")
            }
            guard try env.store.isMember(convoID: convoID, did: target) else {
                throw XRPCError.notFound(.notMember, "\(target) is not a member")
            }
            let validated = try call.validate()
            guard validated.removedDIDs == [target.rawValue], validated.addedDIDs.isEmpty,
                  !validated.members.contains(where: { $0.did == target.rawValue }) else {
                throw XRPCError(400, .invalidCommit, "the commit must remove every leaf of targetDid and nothing else")
            }
            return try call.apply(validated, departures: CommitAuthorization.departures(validated)) { outcome in
                Output(ok: true, newEpoch: outcome.newEpoch)
            }
        }
    }
}
