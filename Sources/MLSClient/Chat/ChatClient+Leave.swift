import ChatProtocol
import MLS

/// Leaving a group and removing devices (CHAT.md §2): a committer never removes its own leaf, so an
/// account whose devices hold leaves asks, and a device of another participant commits the removal.
extension ChatClient {
    /// Leaves a group (defs `signedLeaveOperation`). While this account's devices hold leaves it
    /// asks (`leaveRequestBody`): a request pending for 24 h, which a device of another participant
    /// fulfils with a commit removing every one of them (`fulfilLeave`). Without leaves (an
    /// invitation never accepted, or every device removed) it leaves at once (`zeroLeafLeaveBody`):
    /// the state version moves by one. Returns the `#leaveOperationResult`.
    @discardableResult
    public func requestLeave(_ conversation: ChatUUID) throws -> ChatValue {
        let state = try self.state(conversation)
        guard let prior = ConversationCoordinates(state["coordinates"]) else { throw MLSClientError.invalidServerData("no coordinates") }
        let holdsLeaves = state["leaves"]?.array?.contains { $0["userDid"]?.text == device.did.rawValue } ?? false
        let output: ChatValue
        if holdsLeaves {
            output = try signed("requestLeave", .leaveRequest, ["leaveRequestId": .uuid(.random()), "prior": prior.value])
        } else {
            let next = try prior.nextStateVersion()
            output = try signed("requestLeave", .zeroLeafLeave, ["transitionId": .uuid(.random()), "prior": prior.value, "next": next.value])
        }
        guard let result = output["result"] else { throw MLSClientError.invalidServerData("no result") }
        return result
    }

    /// Withdraws this account's pending leave request (any of its devices may): the one named, or
    /// the one getConversationState lists. Returns `{leaveRequest, entry}`.
    @discardableResult
    public func cancelLeave(_ conversation: ChatUUID, leaveRequestID: ChatUUID? = nil) throws -> ChatValue {
        guard let id = try leaveRequestID ?? pendingRequests(conversation).leaves
            .first(where: { $0["requesterDid"]?.text == device.did.rawValue })?["leaveRequestId"]?.uuid else {
            throw MLSClientError.invalidArgument("no pending leave request of this account in \(conversation)")
        }
        return try signed("cancelLeave", .leaveCancellation, ["conversationId": .uuid(conversation), "leaveRequestId": .uuid(id)])
    }

    /// Fulfils another participant's pending leave request (a `#leaveRequestView`): one commit
    /// removing every leaf of the requester's devices, whose manifest removes the participant and
    /// names each leaf (`leaveCommitFulfillment`). The requester's devices read that commit as the
    /// last entry of their interval. Returns the submitTransition output.
    @discardableResult
    public func fulfilLeave(_ request: ChatValue) throws -> ChatValue {
        guard let conversation = request["conversationId"]?.uuid, let id = request["leaveRequestId"]?.uuid,
              let requester = request["requesterDid"]?.text else {
            throw MLSClientError.invalidServerData("incomplete leave request")
        }
        try sync(conversation)
        let leaves = try current(conversation).group.chatLeaves().filter { $0.did == requester }
        guard !leaves.isEmpty else { throw MLSClientError.invalidArgument("\(requester) holds no leaf in \(conversation)") }
        return try submitCommit(conversation, kind: .leaveCommitFulfillment, proposals: leaves.map { .remove(removed: $0.leaf) }) { _ in
            ["leaveRequestId": .uuid(id),
             "manifest": .object([
                 "participantChanges": .array([.tagged("removeParticipant", ["userDid": .text(requester)])]),
                 "leafChanges": .array(Self.contractOrder(leaves.map { Self.removeLeaf(did: $0.did, device: $0.device) })),
             ])]
        }
    }

    /// Removes the leaves of `devices` (another account's, or this account's other devices, such
    /// as a revoked one) in one commit (`commitTransition` with Removes). Their accounts stay
    /// participants, with fewer leaves. Returns the submitTransition output.
    @discardableResult
    public func removeDevices(_ devices: [ChatUUID], from conversation: ChatUUID) throws -> ChatValue {
        try sync(conversation)
        let leaves = try current(conversation).group.chatLeaves()
        let removed = try devices.map { id in
            guard let leaf = leaves.first(where: { $0.device == id }) else {
                throw MLSClientError.invalidArgument("device \(id) holds no leaf in \(conversation)")
            }
            return leaf
        }
        return try submitCommit(conversation, kind: .commitTransition, proposals: removed.map { .remove(removed: $0.leaf) }) { _ in
            ["manifest": .object(["participantChanges": .array([]),
                                  "leafChanges": .array(Self.contractOrder(removed.map { Self.removeLeaf(did: $0.did, device: $0.device) }))])]
        }
    }

    /// The conversation's pending leave and reset requests (`#leaveRequestView`, `#resetRequestView`).
    public func pendingRequests(_ conversation: ChatUUID) throws -> (leaves: [ChatValue], resets: [ChatValue]) {
        let output = try conversationState(conversation)
        return (output["pendingLeaveRequests"]?.array ?? [], output["pendingResetRequests"]?.array ?? [])
    }
}
