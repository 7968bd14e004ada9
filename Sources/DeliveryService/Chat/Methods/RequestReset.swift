import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.requestReset`: a device of an active participant asks for the conversation
/// to start a new generation (defs `resetRequestBody`): its state is lost, poisoned or diverged.
/// Recorded at the signed coordinates, pending for 24 h, one per conversation; an admin's device
/// acts on it (activateReset). The conversation does not change; the request is an entry of it and
/// every participant's devices hear of it (`resetRequestedEvent`).
enum RequestReset {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "requestReset", .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let prior = ConversationCoordinates(body["prior"]), let id = body["resetRequestId"]?.uuid,
                  let reason = body["reason"]?.text else { throw ChatRefusal(.invalidRequest, "incomplete request") }
            return try call.execute(verified, device: device) { tx in
                let conversation = try tx.lockConversation(at: prior)
                guard prior.lifecycle == .active else { throw ChatRefusal(.staleCoordinates, "the conversation's generation is over") }
                guard try tx.participant(conversation.id, did: call.caller)?.status == "active" else {
                    throw ChatRefusal(.notMember, "only an active participant's device may ask for a reset")
                }
                let request = try tx.openRequest(.reset, id: id, prior: prior, requester: call.caller, device: device.deviceID, reason: reason)
                let entry = try ChatTransition(tx: tx, conversation: conversation, request: call.request).record(kind: "resetRequestEntry")
                tx.emit(.tagged("resetRequestedEvent", ["resetRequestId": .uuid(id), "conversationId": .uuid(conversation.id)]),
                        to: .participants(conversation: conversation.id))
                return ChatJSON.object(["resetRequest": .value(ChatViews.resetRequest(request)),
                                        "entry": .raw(ChatViews.entry(entry, tagged: false))])
            }
        }
    }
}
