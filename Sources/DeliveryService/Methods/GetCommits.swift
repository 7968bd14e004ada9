import Lexicon

/// `blue.catbird.mls.getCommits`: the commits of an epoch range, for current members.
enum GetCommits {
    typealias Commit = GetCommitsOutput.Commit
    typealias Output = GetCommitsOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.getCommits", .query) { context in
            let parameters = context.parameters
            let convoID = try InputValidation.convoID(try parameters.requiredString("convoId"))
            guard let from = try parameters.int("fromEpoch", in: 0...Int.max) else {
                throw XRPCError.invalidRequest("missing parameter fromEpoch")
            }
            let to = try parameters.int("toEpoch", in: 0...Int.max)
            if let to, to < from { throw XRPCError(400, .invalidEpochRange, "toEpoch is before fromEpoch") }
            _ = try env.convo(convoID, memberDID: context.caller)
            let rows = try env.store.commits(convoID: convoID, fromEpoch: Int64(from), toEpoch: to.map(Int64.init))
            return .json(Output(convoId: convoID, commits: rows.map {
                Commit(epoch: $0.epoch, sender: $0.senderDID, commitData: $0.commit,
                       createdAt: Timestamp.rfc3339($0.createdAt))
            }))
        }
    }
}
