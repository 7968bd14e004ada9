import ChatProtocol

extension ChatClient {
    /// Closes a conversation (defs `conversationCloseBody`): either participant of a direct one; a
    /// group only when its one participant, an active admin, closes it. The coordinates retire
    /// (state version + 1, lifecycle superseded) and every device's interval ends at the close
    /// entry. Returns `{tombstone, entry}`.
    @discardableResult
    public func close(_ conversation: ChatUUID) throws -> ChatValue {
        // What came before the close is read first.
        if let membership = conversations[conversation], membership.ended == nil { try sync(conversation) }
        let state = try self.state(conversation)
        guard let prior = ConversationCoordinates(state["coordinates"]), let kind = state["conversationKind"]?.text else {
            throw MLSClientError.invalidServerData("incomplete conversation state")
        }
        var retired = prior
        retired.stateVersion += 1
        retired.lifecycle = .superseded
        guard let result = try signed("closeConversation", .conversationClose, [
            "transitionId": .uuid(.random()), "conversationKind": .text(kind), "prior": prior.value, "retired": retired.value,
        ])["result"] else { throw MLSClientError.invalidServerData("no result") }
        if let seq = result["tombstone"]?["terminalSeq"]?.integer, conversations[conversation] != nil {
            conversations[conversation]?.ended = .closed(seq: seq)
        }
        return result
    }
}
