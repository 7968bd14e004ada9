import ChatProtocol
import DeliveryStore
import MLS
import Primitives

/// `blue.catbird.chat.sendMessage`: an application message (defs `applicationSendBody`) from a
/// device that holds a leaf, made at the conversation's current coordinates: a PrivateMessage of
/// the conversation's group and epoch, of content type application, whose authenticated_data is
/// the body's `#applicationAad` for these coordinates and this message id. The signed request is
/// the entry readers get. Idempotent by messageId; an attempt at stale coordinates spends its id.
enum SendChatMessage {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        // A 1 MiB message as base64 JSON, and the rest of the body.
        XRPCMethod(ChatMethods.prefix + "sendMessage", .procedure, maxBodySize: 2 << 20) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let prior = ConversationCoordinates(body["prior"]), let messageID = body["messageId"]?.uuid else {
                throw ChatRefusal(.invalidRequest, "incomplete message")
            }
            guard body["blobBindings"]?.array?.isEmpty != false else { throw ChatRefusal(.cutoverRequired, "attachments are not served yet") }
            try checkMessage(body, messageID: messageID, prior: prior, env: env)
            return try call.execute(verified, device: device, retiring: [.staleCoordinates]) { tx in
                let conversation = try tx.lockConversation(at: prior)
                guard try tx.leaf(conversation.id, did: call.caller, device: device.deviceID) != nil else {
                    throw ChatRefusal(.deviceNotLeaf, "the signing device holds no leaf in this conversation")
                }
                var entry = ChatEntry(conversationID: conversation.id, seq: 0, entryID: .random(), kind: "applicationEntry",
                                      signedRequest: ChatJSON.render(call.request.wrapper), serverFields: nil,
                                      requestDigest: call.request.requestDigest, receivedAt: tx.now)
                entry.seq = try tx.append(entry)
                ChatEvents.entry(entry, sender: call.request, in: tx)
                return ChatJSON.object(["entry": .raw(ChatViews.entry(entry, tagged: false))])
            }
        }
    }

    /// What the service can see of the PrivateMessage, checked against the signed body.
    static func checkMessage(_ body: ChatValue, messageID: ChatUUID, prior: ConversationCoordinates, env: ChatEnvironment) throws {
        func refuse(_ reason: String) -> ChatRefusal { ChatRefusal(.invalidApplicationMessage, reason) }
        guard prior.lifecycle == .active else { throw ChatRefusal(.staleCoordinates, "the conversation's generation is over") }
        guard let aad = body["aad"], aad == MLSAuthenticatedData.applicationAAD(messageID: messageID, prior: prior) else {
            throw refuse("aad must be the application AAD of prior and messageId")
        }
        guard let bytes = body["applicationMessage"]?["bytes"]?.bytes, let sha256 = body["applicationMessage"]?["sha256"]?.bytes,
              HashAlgorithm.sha256.hash(bytes) == sha256 else { throw refuse("sha256 is not the hash of the message") }
        let message: MLSMessage
        do { message = try MLSMessage(decoding: bytes, limits: env.limits.decodingLimits) } catch {
            throw refuse("not an MLSMessage")
        }
        guard message.version == .mls10, case .privateMessage(let sealed) = message.body else { throw refuse("not a PrivateMessage") }
        guard sealed.contentType == .application else { throw refuse("not an application message") }
        guard sealed.groupID == prior.groupID, sealed.epoch == prior.epoch else {
            throw ChatRefusal(.staleCoordinates, "the message is for another group or epoch than prior")
        }
        guard sealed.authenticatedData == MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.applicationDomain, aad: aad) else {
            throw refuse("authenticated_data is not the application AAD")
        }
    }
}
