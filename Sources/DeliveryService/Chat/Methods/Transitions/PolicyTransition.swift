import ChatProtocol
import DeliveryStore

/// submitTransition's `policyTransitionBody`: an active admin of a group invites participants
/// (pending members, with this transition as their provenance), removes participants that hold no
/// leaf (a commit removes leaves first), and changes roles. The MLS epoch does not move: the state
/// version does, by one. The changes are sorted by DID, each DID at most once; an active admin must
/// remain (`LastAdminRequired`).
enum PolicyTransition {
    static func execute(_ call: SignedCall, context: AuthenticatedContext, device: ChatDevice, verified: VerifiedSignedRequest, env: ChatEnvironment) throws -> XRPCOutput {
        let body = call.request.body
        guard let prior = ConversationCoordinates(body["prior"]), let next = ConversationCoordinates(body["next"]),
              let transitionID = body["transitionId"]?.uuid, let values = body["participantChanges"]?.array else {
            throw ChatRefusal(.invalidRequest, "incomplete transition")
        }
        guard next == (try prior.nextStateVersion()) else { throw ChatRefusal(.invalidRequest, "next must be prior with stateVersion one higher") }
        let changes = try values.map(ChatRoster.Change.init)
        let dids = changes.map { Array($0.did.utf8) }
        guard zip(dids, dids.dropFirst()).allSatisfy({ $0.lexicographicallyPrecedes($1) }) else {
            throw ChatRefusal(.invalidRequest, "participantChanges are sorted by userDid, each DID once")
        }
        let provenance = ChatValue.object([
            "invitationTransitionId": .uuid(transitionID), "invitedByDid": .text(call.caller), "invitedByDeviceId": .uuid(device.deviceID),
        ])
        let invitees = changes.compactMap { change -> String? in if case .add(let did, _) = change { did } else { nil } }
        let consent = try ChatConsent.inviting(invitees, prior.conversationID, env: env)
        return try env.admit(consent, context) { try call.execute(verified, device: device) { tx in
            let conversation = try tx.lockConversation(at: prior)
            guard prior.lifecycle == .active else { throw ChatRefusal(.staleCoordinates, "the conversation's generation is over") }
            guard conversation.kind == "group" else {
                throw ChatRefusal(.directParticipantMutationForbidden, "a direct conversation's participants do not change")
            }
            var roster = ChatRoster(participants: try tx.participants(conversation.id), leaves: try tx.leaves(conversation.id))
            guard roster.participant(call.caller) != nil else { throw ChatRefusal(.notMember, "the account is not a participant") }
            guard roster.isActiveAdmin(call.caller) else { throw ChatRefusal(.adminRequired, "only an active admin changes the roster") }
            for change in changes {
                if case .remove(let did) = change, did == call.caller {
                    throw ChatRefusal(.invalidRequest, "an admin leaves by requestLeave, not by removing itself")
                }
                try roster.apply(change, expectedProvenance: provenance, removeWithLeaves: false)
            }
            try roster.checkResult()
            for participant in roster.added { try tx.addParticipant(conversation.id, participant) }
            for did in roster.removed { try tx.removeParticipant(conversation.id, did: did) }
            for (did, role) in roster.roleChanges { try tx.setRole(conversation.id, did: did, role: role) }
            let entry = try ChatTransition(tx: tx, conversation: conversation, request: call.request).apply(to: next, kind: "policyEntry")
            // Those removed are no longer participants: they hear of it as accounts.
            for did in roster.removed {
                tx.emit(.tagged("conversationChangedEvent", ["conversationId": .uuid(conversation.id)]), to: .account(did: did))
            }
            return SubmitTransition.result(next, entry: entry)
        } }
    }
}
