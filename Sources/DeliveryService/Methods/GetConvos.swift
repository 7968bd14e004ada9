import DeliveryStore
import Lexicon

/// `blue.catbird.mls.getConvos`: the caller's conversations, most recent activity first.
enum GetConvos {
    typealias Output = GetConvosOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        var method = XRPCMethod("blue.catbird.mls.getConvos", .query) { context in
            let caller = context.caller
            let parameters = context.parameters
            // One round trip: the token's replay record and the page.
            let replay = context.deferredReplay
            let page = try env.store.listConvos(for: caller, limit: try parameters.limit(),
                                                cursor: parameters.string("cursor"), replay: replay?.record) {
                replay?.settle()
            }
            return .json(Output(conversations: page.convos.map { ConvoView($0.convo, members: $0.members) },
                                cursor: page.cursor))
        }
        method.recordsReplayInHandler = true
        return method
    }
}
