import DeliveryStore
import Lexicon

/// `blue.catbird.mls.commitGroupChange`: any valid commit (self-update, PSK, GroupContextExtensions,
/// adds and removes), validated against the stored public state.
enum CommitGroupChange {
    typealias Input = CommitGroupChangeInput
    typealias Output = CommitGroupChangeOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.commitGroupChange", .procedure, maxBodySize: 16 << 20) { context in
            let call = try CommitCall<Input>(context, env: env)
            let role = try CommitAuthorization.role(env, convoID: call.convoID, did: call.caller)
            let validated = try call.validate()
            try CommitAuthorization.checkRemovals(validated, callerDID: call.caller.rawValue, isAdmin: role == .admin)
            return try call.apply(validated, departures: CommitAuthorization.departures(validated)) { outcome in
                Output(newEpoch: outcome.newEpoch)
            }
        }
    }
}
