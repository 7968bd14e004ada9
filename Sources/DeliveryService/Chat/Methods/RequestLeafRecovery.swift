import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.requestLeafRecovery`: a device of an active participant asks to be given a
/// leaf (kind `add`): one of its KeyPackages is reserved, bound to the signed coordinates, and a
/// current leaf of the conversation fulfils the request with an Add and a Welcome. The conversation
/// itself does not change. Kind `replace` is not served yet (`CutoverRequired`).
enum RequestLeafRecovery {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "requestLeafRecovery", .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let prior = ConversationCoordinates(body["prior"]), let id = body["recoveryRequestId"]?.uuid,
                  let kind = body["recoveryKind"]?.text else { throw ChatRefusal(.invalidRequest, "incomplete request") }
            guard kind == "add" else { throw ChatRefusal(.cutoverRequired, "leaf replacement is not served yet") }
            return try call.execute(verified, device: device) { tx in
                let conversation = try tx.lockConversation(at: prior)
                guard prior.lifecycle == .active else { throw ChatRefusal(.staleCoordinates, "the conversation's generation is over") }
                guard try tx.participant(conversation.id, did: call.caller)?.status == "active" else {
                    throw ChatRefusal(.notParticipant, "only an active participant's device may ask for a leaf")
                }
                guard try tx.leaf(conversation.id, did: call.caller, device: device.deviceID) == nil else {
                    throw ChatRefusal(.invalidRequest, "the device already holds a leaf here")
                }
                let recovery = try tx.openRecovery(id: id, kind: kind, bound: prior, requester: device)
                ChatEvents.recovery(recovery, status: "open", in: tx)
                return ChatJSON.render(.object(["recovery": ChatViews.recovery(recovery, cipherSuite: conversation.cipherSuite)]))
            }
        }
    }
}
