import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.acceptConversation`: a pending participant's device accepts the invitation
/// exactly as it was made (defs `participantAcceptanceBody`). The participant becomes active, the
/// state version moves by one, and one of the device's KeyPackages is reserved for an add-kind
/// leaf recovery bound to the new coordinates, which a current leaf then fulfils with an Add and a
/// Welcome (submitTransition). An invitee who blocks, or is blocked by, another participant
/// cannot join (blocks are read again, as at the invitation: docs/chat.md).
enum AcceptConversation {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "acceptConversation", .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let prior = ConversationCoordinates(body["prior"]), let next = ConversationCoordinates(body["next"]),
                  let recoveryID = body["recoveryRequestId"]?.uuid, let provenance = body["invitationProvenance"] else {
                throw ChatRefusal(.invalidRequest, "incomplete acceptance")
            }
            var expected = prior
            expected.stateVersion += 1
            guard next == expected, prior.lifecycle == .active else {
                throw ChatRefusal(.invalidRequest, "next must be prior with stateVersion one higher")
            }
            let consent = try ChatConsent.joining(context.caller.rawValue, prior.conversationID, env: env)
            return try env.admit(consent, context) { try call.execute(verified, device: device) { tx in
                let conversation = try tx.lockConversation(at: prior)
                guard let participant = try tx.participant(conversation.id, did: call.caller) else {
                    throw ChatRefusal(.invitationNotFound, "the account is not invited to this conversation")
                }
                guard participant.status == "pending" else { throw ChatRefusal(.invitationNotPending, "the invitation was accepted before") }
                guard participant.provenance == ChatJSON.render(provenance) else {
                    throw ChatRefusal(.invitationProvenanceMismatch, "invitationProvenance is not the invitation's")
                }
                try tx.activate(conversation.id, did: call.caller)
                // The request is bound to the coordinates this acceptance moves to, so that moving
                // there does not supersede it.
                let recovery = try tx.openRecovery(id: recoveryID, kind: "add", bound: next, requester: device)
                let view = ChatViews.recovery(recovery, cipherSuite: conversation.cipherSuite)
                let entry = try ChatTransition(tx: tx, conversation: conversation, request: call.request)
                    .apply(to: next, kind: "participantAcceptanceEntry", serverFields: ChatJSON.render(.object(["recovery": view])),
                           keepingRecovery: recoveryID)
                ChatEvents.recovery(recovery, status: "open", in: tx)
                return ChatJSON.object(["coordinates": .value(next.value), "recovery": .value(view),
                                        "entry": .raw(ChatViews.entry(entry, tagged: false))])
            } }
        }
    }
}
