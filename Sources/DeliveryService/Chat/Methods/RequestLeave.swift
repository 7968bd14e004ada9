import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.requestLeave`, groups only (defs `signedLeaveOperation`). A participant whose
/// devices hold leaves cannot remove them itself (a committer may not remove its own leaf): it
/// records a leave request (`leaveRequestBody`), pending for 24 h, which a device of another
/// participant fulfils with a commit removing every leaf of the requester (submitTransition,
/// `leaveCommitFulfillment`). A participant without leaves (`zeroLeafLeaveBody`) leaves at once:
/// the state version moves by one. Either way an active admin must remain (`LastAdminRequired`).
enum RequestLeave {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "requestLeave", .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let prior = ConversationCoordinates(body["prior"]) else { throw ChatRefusal(.invalidRequest, "incomplete request") }
            let zeroLeaf = call.request.kind == .zeroLeafLeave
            var next: ConversationCoordinates?
            if zeroLeaf {
                guard let signed = ConversationCoordinates(body["next"]), signed == (try prior.nextStateVersion()) else {
                    throw ChatRefusal(.invalidRequest, "next must be prior with stateVersion one higher")
                }
                next = signed
            }
            return try call.execute(verified, device: device) { tx in
                let conversation = try tx.lockConversation(at: prior)
                guard prior.lifecycle == .active else { throw ChatRefusal(.staleCoordinates, "the conversation's generation is over") }
                guard conversation.kind == "group" else {
                    throw ChatRefusal(.directParticipantMutationForbidden, "a direct conversation is closed, not left")
                }
                var roster = ChatRoster(participants: try tx.participants(conversation.id), leaves: try tx.leaves(conversation.id))
                guard roster.participant(call.caller) != nil else { throw ChatRefusal(.notMember, "the account is not a participant") }
                let leaves = roster.leaves(of: call.caller)
                if let next {
                    guard leaves.isEmpty else {
                        throw ChatRefusal(.invalidRequest, "the account's devices hold leaves: a leave request asks another participant to remove them")
                    }
                    try roster.apply(.remove(did: call.caller), removeWithLeaves: false)
                    try roster.checkResult()
                    try tx.removeParticipant(conversation.id, did: call.caller)
                    let entry = try ChatTransition(tx: tx, conversation: conversation, request: call.request)
                        .apply(to: next, kind: "zeroLeafLeaveEntry")
                    return ChatJSON.object(["result": .raw(ChatJSON.object([
                        "$type": .value(.text(ChatSchema.typePrefix + "zeroLeafLeaveResult")),
                        "coordinates": .value(next.value), "entry": .raw(ChatViews.entry(entry, tagged: false)),
                    ]))])
                }
                guard !leaves.isEmpty else {
                    throw ChatRefusal(.invalidRequest, "the account's devices hold no leaf: it leaves at once (zeroLeafLeave)")
                }
                // The roster as it would be once the request is fulfilled must keep an admin.
                for leaf in leaves { try roster.removeLeaf(did: leaf.did, device: leaf.deviceID) }
                try roster.apply(.remove(did: call.caller), removeWithLeaves: true)
                try roster.checkResult()
                guard let id = body["leaveRequestId"]?.uuid else { throw ChatRefusal(.invalidRequest, "incomplete request") }
                let request = try tx.openRequest(.leave, id: id, prior: prior, requester: call.caller, device: device.deviceID)
                let entry = try ChatTransition(tx: tx, conversation: conversation, request: call.request).record(kind: "leaveRequestEntry")
                ChatEvents.leaveRequest(request, in: tx)
                return ChatJSON.object(["result": .raw(ChatJSON.object([
                    "$type": .value(.text(ChatSchema.typePrefix + "durableLeaveRequestResult")),
                    "leaveRequest": .value(ChatViews.leaveRequest(request)), "entry": .raw(ChatViews.entry(entry, tagged: false)),
                ]))])
            }
        }
    }
}
