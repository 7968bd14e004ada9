import Basics
import ChatProtocol
import DeliveryStore
import Dispatch
import Foundation
import HTTP
import MLS
import Primitives

/// `blue.catbird.chat.sendMessage`: an application message (defs `applicationSendBody`) from a
/// device that holds a leaf, made at the conversation's current coordinates: a PrivateMessage of
/// the conversation's group and epoch, of content type application, whose authenticated_data is
/// the body's `#applicationAad` for these coordinates and this message id. The signed request is
/// the entry readers get. Idempotent by messageId; an attempt at stale coordinates spends its id.
///
/// The common case (a device whose key the service has seen) is group-committed with concurrent
/// messages (`appendChatMessages`), its token recorded in the batch's transaction, as v1's
/// sendMessage is; the checks are the same as the path of its own transaction, which takes the rest.
/// A block between the sender and another active participant refuses the message (`BlockedRelationship`),
/// as far as the records in the cache show: the send path never waits for a PDS (docs/chat.md).
enum SendChatMessage {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        // A 1 MiB message as base64 JSON, and the rest of the body.
        var method = XRPCMethod(ChatMethods.prefix + "sendMessage", .procedure, maxBodySize: 2 << 20) { context in
            let call = try SignedCall(context, env: env)
            let body = call.request.body
            guard let prior = ConversationCoordinates(body["prior"]), let messageID = body["messageId"]?.uuid else {
                throw ChatRefusal(.invalidRequest, "incomplete message")
            }
            // A message that binds a blob takes the path of its own transaction, which binds it.
            guard body["blobBindings"]?.array?.isEmpty != false,
                  let key = env.deviceKeys.key(did: call.caller, device: call.deviceID), let signedAt = call.request.signedAt?.date else {
                return try context.blocking { try alone(call, context: context, env: env) }
            }
            guard key.keyID == call.request.keyID else { throw ChatRefusal(.deviceBindingMismatch, "keyId is not the device's key") }
            _ = try call.verify(publicKey: key.publicKey)
            try checkMessage(body, messageID: messageID, prior: prior, env: env)
            // The roster at these coordinates, known here once a message took the way of its own transaction.
            guard let roster = env.rosters.roster(at: prior) else {
                return try context.blocking { try alone(call, context: context, env: env) }
            }
            try checkBlocks(context.caller, roster, env: env)
            let replay = context.deferredReplay
            let message = ChatBatchedMessage(
                prior: prior, actorDID: call.caller, deviceID: call.deviceID, keyID: call.request.keyID,
                authGeneration: Int64(call.request.authGeneration), messageID: messageID, requestDigest: call.request.requestDigest,
                signature: call.request.signature, signedAt: signedAt, signedRequest: ChatJSON.render(call.request.wrapper),
                replay: replay?.record)
            let keys = ["o\u{0}\(call.caller)\u{0}\(messageID)"] + (replay.map { ["t\u{0}\($0.record.iss)\u{0}\($0.record.jti)"] } ?? [])
            return .pending(XRPCPendingOutput { complete in
                env.messages.append(message, lane: prior.conversationID.description, exclusiveKeys: keys, lead: context.runBlocking) { outcome in
                    switch outcome {
                    case .success(.answered(let status, let response)):
                        replay?.settle()
                        complete(.success(answer(status, response, env: env)))
                    case .success(.refused(let refusal)):
                        replay?.settle()
                        complete(.failure(refusal))
                    case .success(.alone):
                        // Its own transaction blocks: not on the lane's thread, whose next batch waits.
                        DispatchQueue.global().async { complete(Result { try alone(call, context: context, env: env) }) }
                    case .failure(let error):
                        // The token is recorded on the answer's way back (ServiceAuth), which waits on the database.
                        DispatchQueue.global().async { complete(.failure(error)) }
                    }
                }
            })
        }
        method.recordsReplayInHandler = true
        // The common case blocks on nothing before its batch: it runs on the I/O thread, its batch on a worker.
        method.startsOnIOThread = true
        return method
    }

    /// The message in a transaction of its own (blocks): a device not seen yet, a batch that
    /// could not judge the message, or a message binding an uploaded attachment to its entry
    /// (`bindAttachment`: `BlobNotFound`, `BlobBindingConflict`).
    static func alone(_ call: SignedCall, context: AuthenticatedContext, env: ChatEnvironment) throws -> XRPCOutput {
        let (device, verified) = try call.verify()
        let body = call.request.body
        guard let prior = ConversationCoordinates(body["prior"]), let messageID = body["messageId"]?.uuid else {
            throw ChatRefusal(.invalidRequest, "incomplete message")
        }
        try checkMessage(body, messageID: messageID, prior: prior, env: env)
        let binding = ChatBlobBinding(body["blobBindings"]?.array?.first)
        return try call.execute(verified, device: device, retiring: [.staleCoordinates]) { tx in
            let conversation = try tx.lockConversation(at: prior)
            guard try tx.leaf(conversation.id, did: call.caller, device: device.deviceID) != nil else {
                throw ChatRefusal(.deviceNotLeaf, "the signing device holds no leaf in this conversation")
            }
            let participants = try tx.participants(conversation.id).filter { $0.status == "active" }.map(\.did)
            env.rosters.remember(participants, at: prior)
            try checkBlocks(context.caller, env.rosters.roster(at: prior) ?? [], env: env)
            if let binding {
                try tx.bindAttachment(binding, conversation: conversation.id, seq: tx.nextSeq(conversation), did: call.caller, now: env.clock())
            }
            var entry = ChatEntry(conversationID: conversation.id, seq: 0, entryID: .random(), kind: "applicationEntry",
                                  signedRequest: ChatJSON.render(call.request.wrapper), serverFields: nil,
                                  requestDigest: call.request.requestDigest, receivedAt: tx.now.truncatedToMilliseconds)
            entry.seq = try tx.append(entry)
            ChatEvents.entry(entry, sender: call.request, in: tx)
            try tx.pushMessage(entry, sender: call.caller, epoch: prior.epoch, messageID: messageID)
            return ChatJSON.object(["entry": .raw(ChatViews.entry(entry, tagged: false))])
        }
    }

    /// A block between the sender and another active participant, as the cache shows it.
    static func checkBlocks(_ sender: DID, _ roster: [DID], env: ChatEnvironment) throws {
        guard env.relationships.blockedFromCache(sender, others: roster) else { return }
        throw ChatRefusal(.blockedRelationship, ChatEnvironment.reason(.blockedRelationship))
    }

    static func answer(_ status: Int, _ response: [UInt8], env: ChatEnvironment) -> XRPCOutput {
        guard status == 200 else {
            var headers = HTTPHeaders()
            headers.add("Content-Type", "application/json")
            return .http(HTTPResponse(status: status, headers: headers, body: response))
        }
        return env.output(response)
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

extension Date {
    /// Entries keep milliseconds, as their canonical timestamps show them.
    var truncatedToMilliseconds: Date { Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded(.down) / 1000) }
}
