import Lexicon

/// `blue.catbird.mls.getWelcome`: the Welcome waiting for the caller; fetching does not consume it.
enum GetWelcome {
    typealias Output = GetWelcomeOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.getWelcome", .query) { context in
            let convoID = try InputValidation.convoID(try context.parameters.requiredString("convoId"))
            let row = try env.store.welcome(convoID: convoID, recipient: context.caller)
            return .json(Output(convoId: convoID, welcome: row.welcome))
        }
    }
}
