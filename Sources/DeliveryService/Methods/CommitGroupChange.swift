import DeliveryStore
import Lexicon

/// `blue.catbird.mls.commitGroupChange`: any valid commit (self-update, PSK, GroupContextExtensions,
/// adds and removes), validated against the stored public state.
enum CommitGroupChange {
    typealias Input = CommitGroupChangeInput
    typealias Output = CommitGroupChangeOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.commitGroupChange", .procedure, maxBodySize: 16 << 20) { context in
            let caller = context.caller
            let input = try context.input(Input.self)
            let convoID = try InputValidation.convoID(input.convoId)
            let role = try CommitAuthorization.role(env, convoID: convoID, did: caller)
            let pipeline = CommitPipeline(env: env)
            let request = CommitPipeline.Request(convoID: convoID, commit: input.commit.bytes, groupInfo: input.groupInfo?.bytes,
                                                 welcome: input.welcomeMessage?.bytes, caller: caller)
            let validated = try pipeline.validate(request)
            try CommitAuthorization.checkRemovals(validated, callerDID: caller.rawValue, isAdmin: role == .admin)
            let application = pipeline.application(validated, request: request,
                                                   departures: CommitAuthorization.departures(validated))
            return try env.idempotent(context, key: input.idempotencyKey) { tx in
                Output(newEpoch: try tx.applyCommit(application).newEpoch)
            }
        }
    }
}
