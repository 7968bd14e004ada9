import DeliveryStore
import Lexicon

/// `blue.catbird.mls.getMessages`: messages after `sinceSeq` in seq order, for current members.
enum GetMessages {
    typealias Output = GetMessagesOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        var method = XRPCMethod("blue.catbird.mls.getMessages", .query) { context in
            let parameters = context.parameters
            let convoID = try InputValidation.convoID(try parameters.requiredString("convoId"))
            let caller = context.caller
            let kind: MessageKind?
            switch parameters.string("type") ?? "all" {
            case "all": kind = nil
            case "app": kind = .app
            case "commit": kind = .commit
            case "proposal": kind = .proposal
            default: throw XRPCError.invalidRequest("type must be app, commit, proposal or all")
            }
            let fromEpoch = try parameters.int("fromEpoch", in: 0...Int.max).map(Int64.init)
            let toEpoch = try parameters.int("toEpoch", in: 0...Int.max).map(Int64.init)
            if let fromEpoch, let toEpoch, toEpoch < fromEpoch {
                throw XRPCError(400, .invalidEpochRange, "toEpoch is before fromEpoch")
            }
            let limit = try parameters.limit()
            let query = MessageQuery(sinceSeq: Int64(try parameters.int("sinceSeq", in: 0...Int.max) ?? 0), limit: limit,
                                     fromEpoch: fromEpoch, toEpoch: toEpoch, kind: kind)
            // One round trip: the token's replay record, then conversation, membership and page
            // (404 ConvoNotFound, 403 NotMember) in one statement.
            let replay = context.deferredReplay
            let page = try env.store.messages(convoID: convoID, member: caller, query, replay: replay?.record) {
                replay?.settle()
            }
            let last = page.messages.last?.seq
            return .json(Output(messages: page.messages.map(MessageView.init), lastSeq: page.lastSeq,
                                cursor: page.messages.count == limit ? last.map(String.init) : nil))
        }
        method.recordsReplayInHandler = true
        return method
    }
}
