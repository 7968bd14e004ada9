import Basics
import ChatProtocol
import DeliveryStore
import Foundation

/// `blue.catbird.chat.publishTyping`: a signed typing indicator (defs `typingBody`) from a device
/// holding a leaf, made at the conversation's current coordinates. Its event (defs `typingEvent`,
/// lasting 8 s from the service's clock) goes to the subscriptions of the conversation's other
/// current leaf devices, on every node, as its own frame without a cursor; it is never stored and
/// never an entry. `typingId` makes the request idempotent while its event lasts. Per device and
/// conversation at most one event goes out per CHAT_TYPING_INTERVAL (calls within it are folded
/// into the next), and more than CHAT_TYPING_BURST calls in one are `RateLimited` (docs/chat.md).
enum PublishTyping {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "publishTyping", .procedure, maxBodySize: 16 << 10) { context in
            let call = try SignedCall(context, env: env)
            let body = call.request.body
            guard let typingID = body["typingId"]?.uuid, let coordinates = ConversationCoordinates(body["coordinates"]),
                  case .bool(let isTyping)? = body["isTyping"] else { throw ChatRefusal(.invalidRequest, "incomplete typing indicator") }
            let (device, _) = try call.verify()
            try call.checkFreshness(at: env.clock())
            if let event = try env.typing.answered(call.request, typingID: typingID) { return answer(event, env: env) }
            let key = ChatTyping.Key(did: call.caller, device: device.deviceID, conversation: coordinates.conversationID)
            try env.typing.admit(key)

            let (leaves, participants) = try env.store.chat { tx -> ([ChatLeaf], [ChatParticipant]) in
                guard let conversation = try tx.conversation(coordinates.conversationID) else {
                    throw ChatRefusal(.conversationNotFound, "no such conversation")
                }
                guard conversation.coordinates == coordinates, coordinates.lifecycle == .active else {
                    throw ChatRefusal(.staleCoordinates, "coordinates are not the conversation's current ones")
                }
                return (try tx.leaves(conversation.id), try tx.participants(conversation.id))
            }
            guard leaves.contains(where: { $0.did == call.caller && $0.deviceID == device.deviceID }) else {
                throw ChatRefusal(.deviceNotLeaf, "the signing device holds no leaf in this conversation")
            }
            let active = participants.filter { $0.status == "active" }
            if env.relationships.blockedFromCache(context.caller, others: active.compactMap { try? DID($0.did) }) {
                throw ChatRefusal(.blockedRelationship, ChatEnvironment.reason(.blockedRelationship))
            }
            let event = ChatTypingEvent(typingID: typingID, conversationID: coordinates.conversationID, actorDID: call.caller,
                                        actorDeviceID: device.deviceID, isTyping: isTyping,
                                        expiresAt: CanonicalTimestamp(env.clock().addingTimeInterval(ChatTypingSettings.lifetime)))
            let recipients = leaves.filter { !($0.did == call.caller && $0.deviceID == device.deviceID) }
                .map { ChatTypingNotice.tag(did: $0.did, device: $0.deviceID) }
            try env.typing.publish(key, ChatTypingNotice(event: event, recipients: Set(recipients)), request: call.request)
            return answer(event, env: env)
        }
    }

    static func answer(_ event: ChatTypingEvent, env: ChatEnvironment) -> XRPCOutput {
        env.output(.object(["typing": event.value]))
    }
}
