import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.getConversationState`: a conversation's current state (coordinates,
/// participants, leaves, the encrypted metadata snapshot) for a device whose account takes part in
/// it, pending invitees included (they sign their acceptance against these coordinates), and its
/// pending reset and leave requests.
enum GetConversationState {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "getConversationState", .query) { context in
            let query = try ChatQuery(context, env: env)
            let id = try query.uuid("conversationId")
            let (state, resets, leaves) = try env.store.chat { tx -> (ChatValue, [ChatValue], [ChatValue]) in
                guard let conversation = try tx.conversation(id) else { throw ChatRefusal(.conversationNotFound, "no such conversation") }
                guard conversation.coordinates.lifecycle == .active else {
                    throw ChatRefusal(.conversationNotFound, "the conversation is closed: its tombstone is in getConversations")
                }
                guard try tx.participant(id, did: query.caller) != nil else {
                    throw ChatRefusal(.notEntitled, "the account does not take part in this conversation")
                }
                return (try ChatViews.state(of: conversation, in: tx),
                        try tx.pendingRequests(.reset, id).map(ChatViews.resetRequest),
                        try tx.pendingRequests(.leave, id).map(ChatViews.leaveRequest))
            }
            return env.output(.object(["state": state, "pendingResetRequests": .array(resets), "pendingLeaveRequests": .array(leaves)]))
        }
    }
}
