import DeliveryStore
import Lexicon

/// `blue.catbird.mls.getConvos`: the caller's conversations, most recent activity first.
enum GetConvos {
    typealias Output = GetConvosOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.getConvos", .query) { context in
            let caller = context.caller
            let parameters = context.parameters
            let page = try env.store.listConvos(for: caller, limit: try parameters.limit(),
                                                cursor: parameters.string("cursor"))
            return .json(Output(conversations: page.convos.map { ConvoView($0.convo, members: $0.members) },
                                cursor: page.cursor))
        }
    }
}
