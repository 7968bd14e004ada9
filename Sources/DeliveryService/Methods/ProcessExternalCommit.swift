import DeliveryStore
import Foundation
import Lexicon

/// `blue.catbird.mls.processExternalCommit`: a member that lost its state rejoins with an external
/// commit (sender new_member_commit) built from the group's published GroupInfo.
enum ProcessExternalCommit {
    typealias Input = ProcessExternalCommitInput
    typealias Output = ProcessExternalCommitOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.processExternalCommit", .procedure, maxBodySize: 8 << 20) { context in
            let call = try CommitCall<Input>(context, env: env)
            let (convoID, caller) = (call.convoID, call.caller)
            _ = try env.store.loadConvo(convoID)
            guard try env.store.isMember(convoID: convoID, did: caller) else {
                throw XRPCError.forbidden(.unauthorized, "only a current member may rejoin by external commit")
            }
            let validated = try call.validate()
            guard validated.summary.isExternal else {
                throw XRPCError(400, .invalidCommit, "externalCommit must be sent by new_member_commit")
            }
            guard validated.removedDIDs.allSatisfy({ $0 == caller.rawValue }), validated.addedDIDs.isEmpty else {
                throw XRPCError.forbidden(.unauthorized, "an external commit may only replace the caller's own leaf")
            }
            return try call.apply(validated) { outcome in
                Output(epoch: outcome.newEpoch, rejoinedAt: Timestamp.rfc3339(Date()))
            }
        }
    }
}
