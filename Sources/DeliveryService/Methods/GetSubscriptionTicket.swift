import DeliveryStore
import Lexicon

/// `blue.catbird.mls.getSubscriptionTicket`: a short-lived, single-use ticket for
/// subscribeConvoEvents, bound to the caller and optionally to one conversation it is a member of.
enum GetSubscriptionTicket {
    typealias Input = GetSubscriptionTicketInput
    typealias Output = GetSubscriptionTicketOutput

    static func method(_ env: MethodEnvironment, events: EventService) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.getSubscriptionTicket", .procedure, maxBodySize: 4 << 10) { context in
            let caller = context.caller
            // The body is optional: no body (or `{}`) asks for all the caller's conversations.
            let input = context.request.body.isEmpty ? Input() : try context.input(Input.self)
            let convoID = try input.convoId.map { text throws(XRPCError) in try InputValidation.convoID(text) }
            if let convoID { _ = try env.convo(convoID, memberDID: caller) }
            let deviceID = try input.deviceId.map { text throws(XRPCError) in try PushRegistrationRules.deviceID(text) }
            let issued = events.issueTicket(did: caller, convoID: convoID, deviceID: deviceID)
            return .json(Output(ticket: issued.text, endpoint: events.endpoint, expiresAt: Timestamp.rfc3339(issued.expiresAt)))
        }
    }
}
