import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.requestLeafRecovery`: a device of an active participant asks to be given a
/// leaf (kind `add`, the device holds none here) or a new one for the leaf it holds but can no
/// longer use (kind `replace`: its state was lost): one of its KeyPackages is reserved, bound to the
/// signed coordinates, and a current leaf of another device fulfils the request with an Add (and,
/// for a replacement, the Remove of the old leaf) and a Welcome. The conversation itself does not change.
enum RequestLeafRecovery {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "requestLeafRecovery", .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let prior = ConversationCoordinates(body["prior"]), let id = body["recoveryRequestId"]?.uuid,
                  let kind = body["recoveryKind"]?.text else { throw ChatRefusal(.invalidRequest, "incomplete request") }
            return try call.execute(verified, device: device) { tx in
                let conversation = try tx.lockConversation(at: prior)
                guard prior.lifecycle == .active else { throw ChatRefusal(.staleCoordinates, "the conversation's generation is over") }
                guard try tx.participant(conversation.id, did: call.caller)?.status == "active" else {
                    throw ChatRefusal(.notParticipant, "only an active participant's device may ask for a leaf")
                }
                // An add is for a device without a leaf here; a replacement for one whose leaf it can no longer use.
                let holdsLeaf = try tx.leaf(conversation.id, did: call.caller, device: device.deviceID) != nil
                guard holdsLeaf == (kind == "replace") else {
                    throw ChatRefusal(.invalidRequest, holdsLeaf ? "the device already holds a leaf here: it asks for a replacement"
                                                                 : "the device holds no leaf here to replace: it asks for an add")
                }
                let recovery = try tx.openRecovery(id: id, kind: kind, bound: prior, requester: device)
                ChatEvents.recovery(recovery, status: "open", in: tx)
                return ChatJSON.render(.object(["recovery": ChatViews.recovery(recovery, cipherSuite: conversation.cipherSuite)]))
            }
        }
    }
}
