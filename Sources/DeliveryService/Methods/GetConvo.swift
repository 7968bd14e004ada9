import Lexicon

/// `blue.catbird.mls.getConvo`: one conversation the caller belongs to.
enum GetConvo {
    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.getConvo", .query) { context in
            let convoID = try InputValidation.convoID(try context.parameters.requiredString("convoId"))
            let convo = try env.convo(convoID, memberDID: context.caller)
            return .json(ConvoView(convo, members: try env.store.members(convoID: convoID)))
        }
    }
}
