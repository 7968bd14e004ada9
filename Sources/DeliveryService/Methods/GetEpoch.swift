import Lexicon

/// `blue.catbird.mls.getEpoch`: the conversation's current epoch.
enum GetEpoch {
    typealias Output = GetEpochOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.getEpoch", .query) { context in
            let convoID = try InputValidation.convoID(try context.parameters.requiredString("convoId"))
            let convo = try env.convo(convoID, memberDID: context.caller)
            return .json(Output(convoId: convoID, currentEpoch: convo.epoch))
        }
    }
}
