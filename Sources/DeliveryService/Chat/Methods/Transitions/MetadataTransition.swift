import ChatProtocol
import DeliveryStore

/// submitTransition's `metadataTransitionBody`: an active admin's device replaces the encrypted
/// title and avatar (defs `metadataSnapshot`, which the service cannot read; its `avatarBinding`
/// names an uploaded `metadata` blob of the signer, which becomes the avatar). The snapshot is for
/// the current epoch, its version one higher, its origin this transition, and its author proof the
/// signing device at this transition's entry; its nonce is new at this epoch (`MetadataNonceReuse`).
/// The MLS epoch does not move: the state version does, by one.
enum MetadataTransition {
    static func execute(_ call: SignedCall, device: ChatDevice, verified: VerifiedSignedRequest, env: ChatEnvironment) throws -> XRPCOutput {
        let body = call.request.body
        guard let prior = ConversationCoordinates(body["prior"]), let next = ConversationCoordinates(body["next"]),
              let transitionID = body["transitionId"]?.uuid, let snapshot = body["metadataSnapshot"] else {
            throw ChatRefusal(.invalidRequest, "incomplete transition")
        }
        guard next == (try prior.nextStateVersion()) else { throw ChatRefusal(.invalidRequest, "next must be prior with stateVersion one higher") }
        return try call.execute(verified, device: device) { tx in
            let conversation = try tx.lockConversation(at: prior)
            guard prior.lifecycle == .active else { throw ChatRefusal(.staleCoordinates, "the conversation's generation is over") }
            guard let participant = try tx.participant(conversation.id, did: call.caller) else {
                throw ChatRefusal(.notMember, "the account is not a participant")
            }
            guard participant.status == "active", participant.role == "admin" else {
                throw ChatRefusal(.adminRequired, "only an active admin changes the conversation's metadata")
            }
            let current = try ChatViews.json(conversation.metadataSnapshot, as: "metadataSnapshot")
            guard let version = current["metadataVersion"]?.integer else { throw XRPCError.internalError }
            guard version < ConversationCoordinates.maxInteger else {
                throw ChatRefusal(.metadataVersionOverflow, "the metadata version is at its bound")
            }
            try MetadataSnapshotCheck.check(snapshot, at: next, version: version + 1, origin: transitionID)
            try MetadataSnapshotCheck.checkAuthor(snapshot, request: call.request, publicKey: device.publicKey,
                                                  originSeq: tx.nextSeq(conversation))
            try tx.recordMetadataNonce(conversation.id, generation: next.generation, epoch: next.epoch, nonce: snapshot["nonce"]?.bytes ?? [])
            // A new avatar is an uploaded metadata blob of the signer; the one it replaces stops being readable.
            try tx.setMetadataAvatar(ChatBlobBinding(snapshot["avatarBinding"]), conversation: conversation.id,
                                     metadataVersion: version + 1, did: call.caller, now: env.clock())
            let entry = try ChatTransition(tx: tx, conversation: conversation, request: call.request)
                .apply(to: next, kind: "metadataEntry", metadataSnapshot: ChatJSON.render(snapshot))
            return SubmitTransition.result(next, entry: entry)
        }
    }
}
