import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.closeConversation` (defs `conversationCloseBody`): either participant closes a
/// direct conversation; a group is closed by its last participant, an active admin
/// (`ConversationCloseNotAllowed` otherwise). The coordinates are retired (state version one higher,
/// lifecycle `superseded`) and stay as the conversation's tombstone (`conversationCloseTombstone`,
/// the close entry's server field); every interval ends at the close entry, every pending Welcome,
/// recovery, leave and reset request is over, and the pair of a direct conversation may start a
/// new one. Every participant's devices hear of it (`conversationClosedEvent`).
enum CloseConversation {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "closeConversation", .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let prior = ConversationCoordinates(body["prior"]), let retired = ConversationCoordinates(body["retired"]),
                  let kind = body["conversationKind"]?.text, let transitionID = body["transitionId"]?.uuid else {
                throw ChatRefusal(.invalidRequest, "incomplete close")
            }
            var expected = try prior.nextStateVersion()
            expected.lifecycle = .superseded
            guard retired == expected else {
                throw ChatRefusal(.invalidRequest, "retired must be prior with stateVersion one higher and lifecycle superseded")
            }
            return try call.execute(verified, device: device) { tx in
                let conversation = try tx.lockConversation(at: prior)
                guard prior.lifecycle == .active else { throw ChatRefusal(.staleCoordinates, "the conversation is closed") }
                guard kind == conversation.kind else { throw ChatRefusal(.invalidRequest, "conversationKind is not the conversation's") }
                let participants = try tx.participants(conversation.id)
                guard let participant = participants.first(where: { $0.did == call.caller }) else {
                    throw ChatRefusal(.notParticipant, "the account is not a participant")
                }
                if kind == "group" {
                    guard participants.count == 1, participant.status == "active", participant.role == "admin" else {
                        throw ChatRefusal(.conversationCloseNotAllowed, "a group is closed by its last participant, an active admin")
                    }
                }
                let transition = ChatTransition(tx: tx, conversation: conversation, request: call.request)
                let seq = tx.nextSeq(conversation)
                _ = try transition.endGeneration(at: seq, transitionID: transitionID, how: .closed)
                try tx.close(conversation.id, retired: retired, by: call.caller, device: device.deviceID, terminalSeq: seq)
                let tombstone = ChatValue.object([
                    "conversationId": .uuid(conversation.id), "conversationKind": .text(kind), "retired": retired.value,
                    "closedByDid": .text(call.caller), "closedByDeviceId": .uuid(device.deviceID),
                    "terminalSeq": .integer(UInt64(seq)), "closedAt": ChatViews.time(tx.now),
                ])
                let entry = try transition.record(kind: "conversationCloseEntry", serverFields: ChatJSON.render(.object(["tombstone": tombstone])))
                tx.emit(.tagged("conversationClosedEvent", [
                    "conversationId": .uuid(conversation.id), "conversationKind": .text(kind), "terminalSeq": .integer(UInt64(seq)),
                ]), to: .participants(conversation: conversation.id))
                return ChatJSON.object(["result": .raw(ChatJSON.object([
                    "tombstone": .value(tombstone), "entry": .raw(ChatViews.entry(entry, tagged: false)),
                ]))])
            }
        }
    }
}
