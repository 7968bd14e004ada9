import ChatProtocol
import MLS

/// Who takes part, with which role, and the group's metadata: transitions of an active admin that
/// move the state version and not the MLS epoch (CHAT.md §2).
extension ChatClient {
    /// A participant's role (defs `memberRole`).
    public enum Role: String, Sendable {
        case admin, member
    }

    /// Changes a group's participants (defs `policyTransitionBody`): `invite` adds pending members
    /// (each accepts, then a leaf adds its device), `remove` takes out participants without leaves
    /// (an invitation not accepted, or an account whose devices were all removed), `roles` sets the
    /// role of active participants. One change per participant, sorted by DID as the contract
    /// requires. Returns the submitTransition output.
    @discardableResult
    public func policy(_ conversation: ChatUUID, invite: [String] = [], remove: [String] = [],
                       roles: [String: Role] = [:]) throws -> ChatValue {
        let prior = try coordinates(conversation)
        let next = try prior.nextStateVersion()
        let transition = ChatUUID.random()
        let provenance = ChatValue.object(["invitationTransitionId": .uuid(transition), "invitedByDid": .text(device.did.rawValue),
                                           "invitedByDeviceId": .uuid(device.deviceID)])
        var changes = invite.map { did in
            (did, ChatValue.tagged("addParticipant", ["userDid": .text(did), "role": .text("member"), "status": .text("pending"),
                                                      "invitationProvenance": provenance]))
        }
        changes += remove.map { ($0, .tagged("removeParticipant", ["userDid": .text($0)])) }
        changes += roles.map { ($0.key, .tagged("changeParticipantRole", ["userDid": .text($0.key), "role": .text($0.value.rawValue)])) }
        changes.sort { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
        guard !changes.isEmpty, zip(changes, changes.dropFirst()).allSatisfy({ $0.0 != $1.0 }) else {
            throw MLSClientError.invalidArgument("a policy change names each participant once, and at least one")
        }
        return try signed("submitTransition", .policyTransition, [
            "transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "participantChanges": .array(changes.map(\.1)),
        ])
    }

    /// Sets the group's title (defs `metadataTransitionBody`): the next metadata version, signed by
    /// this device and encrypted for the current epoch, with this device's author proof naming the
    /// seq its entry gets (the state's last seq + 1: an entry stored in between, a message say,
    /// makes the service refuse it with InvalidMetadataSnapshot, and the caller renames again).
    /// Returns the submitTransition output.
    @discardableResult
    public func rename(_ conversation: ChatUUID, title: String) throws -> ChatValue {
        try sync(conversation)
        let membership = try current(conversation)
        return try setMetadata(conversation, title: title, avatar: ChatMetadata.avatar(membership.metadata),
                               binding: membership.avatarBinding)
    }

    /// A metadata transition to the next version with `title` and `avatar` (an embed, and the
    /// snapshot's binding of its blob), signed by this device.
    func setMetadata(_ conversation: ChatUUID, title: String, avatar: DAGCBORValue?, binding: ChatValue?,
                     step: MetadataStep? = nil) throws -> ChatValue {
        var membership = try current(conversation)
        let step = try step ?? nextMetadata(conversation)
        let (prior, next, transition, head, version) = (step.prior, step.next, step.transition, step.head, step.version)
        // The entry this transition makes follows the last one the state counts.
        let proof = authorProof(origin: transition, seq: head + 1)
        let plaintext = ChatMetadata.plaintext(title: title, version: version + 1, origin: transition, device: device, avatar: avatar)
        let snapshot = try ChatMetadata.seal(plaintext, version: version + 1, origin: transition, authorProof: proof,
                                             avatarBinding: binding, coordinates: next, group: membership.group)
        let output = try signed("submitTransition", .metadataTransition, [
            "transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "metadataSnapshot": snapshot,
        ])
        membership.metadata = plaintext
        membership.metadataVersion = version + 1
        membership.metadataOrigin = transition
        membership.authorProof = proof
        membership.avatarBinding = binding
        membership.title = title
        conversations[conversation] = membership
        return output
    }

    /// A metadata transition about to be made: the coordinates it moves from and to, its id, and
    /// the state's last seq and metadata version it follows.
    struct MetadataStep {
        let prior: ConversationCoordinates
        let next: ConversationCoordinates
        let transition: ChatUUID
        let head: UInt64
        let version: UInt64
    }

    /// The next metadata transition of `conversation`, from its current state.
    func nextMetadata(_ conversation: ChatUUID) throws -> MetadataStep {
        guard let state = try conversationState(conversation)["state"], let prior = ConversationCoordinates(state["coordinates"]),
              let head = state["snapshotSeq"]?.integer, let version = state["metadataSnapshot"]?["metadataVersion"]?.integer else {
            throw MLSClientError.invalidServerData("incomplete conversation state")
        }
        return MetadataStep(prior: prior, next: try prior.nextStateVersion(), transition: .random(), head: head, version: version)
    }
}
