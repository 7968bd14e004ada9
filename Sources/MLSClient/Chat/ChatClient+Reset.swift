import ChatProtocol
import MLS

/// Resetting a conversation whose group cannot go on (CHAT.md §2): any active participant asks, an
/// active admin starts a new generation holding only its own leaf, and every other device asks for
/// a leaf again (`requestLeaf`, kind add) and joins from the Welcome.
extension ChatClient {
    /// Why a reset is asked for (defs `resetReason`).
    public enum ResetReason: String, Sendable, CaseIterable {
        case localStateLost, poisonedState, epochDivergence, manualRecovery
    }

    /// Asks for a reset (defs `resetRequestBody`): recorded, pending for 24 h, at most one per
    /// conversation. Returns `{resetRequest, entry}`.
    @discardableResult
    public func requestReset(_ conversation: ChatUUID, reason: ResetReason = .manualRecovery) throws -> ChatValue {
        try signed("requestReset", .resetRequest, [
            "resetRequestId": .uuid(.random()), "prior": try coordinates(conversation).value, "reason": .text(reason.rawValue),
        ])
    }

    /// Activates a pending reset request (a `#resetRequestView`) as an active admin (defs
    /// `resetActivationBody`): the current coordinates retire, and the successor is generation + 1
    /// at epoch 0 of a new one-leaf group of this device, made and announced as a creation's
    /// genesis, with the same participants. The metadata is this device's re-encrypted for the new
    /// group or, with `title` (or when this device cannot read it), a new version it writes.
    /// Returns `{retiredCoordinates, successorCoordinates, entry}`.
    @discardableResult
    public func activateReset(_ request: ChatValue, title: String? = nil) throws -> ChatValue {
        guard let conversation = request["conversationId"]?.uuid, let requestID = request["resetRequestId"]?.uuid else {
            throw MLSClientError.invalidServerData("incomplete reset request")
        }
        // What the old generation still has for this device is read first.
        let old = conversations[conversation]
        if old != nil, old?.ended == nil { try sync(conversation) }
        let readable = conversations[conversation].flatMap { $0.ended == nil && !$0.metadata.isEmpty ? $0 : nil }
        guard let state = try conversationState(conversation)["state"], let prior = ConversationCoordinates(state["coordinates"]),
              let kind = state["conversationKind"]?.text, let head = state["snapshotSeq"]?.integer,
              let version = state["metadataSnapshot"]?["metadataVersion"]?.integer else {
            throw MLSClientError.invalidServerData("incomplete conversation state")
        }
        var retired = prior
        retired.stateVersion += 1
        retired.lifecycle = .superseded
        let transition = ChatUUID.random()
        let genesis = try Genesis(self, conversation: conversation, generation: prior.generation + 1)
        // The roster as it is (the view's leaf counts are not part of it).
        let participants = (state["participants"]?.array ?? []).map { view in
            ChatValue.object((view.members ?? [:]).filter { ["userDid", "role", "status", "invitationProvenance"].contains($0.key) })
        }
        var membership: ChatMembership
        if title == nil, let readable {
            membership = readable
            membership.group = genesis.group
        } else {
            let title = title ?? ""
            membership = ChatMembership(group: genesis.group, kind: kind, lastSeq: 0, joinedAt: 0,
                                        metadata: ChatMetadata.plaintext(title: title, version: version + 1, origin: transition, device: device),
                                        metadataVersion: version + 1, metadataOrigin: transition,
                                        authorProof: authorProof(origin: transition, seq: head + 1), title: title,
                                        unread: conversations[conversation]?.unread ?? [])
        }
        let snapshot = try ChatMetadata.seal(membership.metadata, version: membership.metadataVersion, origin: membership.metadataOrigin,
                                             authorProof: membership.authorProof, avatarBinding: membership.avatarBinding,
                                             coordinates: genesis.coordinates, group: genesis.group)
        let output = try signed("activateReset", .resetActivation, [
            "resetRequestId": .uuid(requestID), "transitionId": .uuid(transition), "conversationKind": .text(kind),
            "prior": prior.value, "retired": retired.value, "successor": genesis.coordinates.value,
            "manifest": genesis.manifest(participants, device: device), "genesisGroupInfo": genesis.groupInfo, "metadataSnapshot": snapshot,
        ])
        // This device's new interval starts at the activation's entry.
        let seq = output["entry"]?["seq"]?.integer ?? head + 1
        membership.lastSeq = seq
        membership.joinedAt = seq
        membership.ended = nil
        conversations[conversation] = membership
        return output
    }
}
