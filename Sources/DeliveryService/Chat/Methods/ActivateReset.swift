import ChatProtocol
import DeliveryStore
import Foundation

/// `blue.catbird.chat.activateReset` (defs `resetActivationBody`): an active admin's device acts on
/// the pending reset request bound to the current coordinates and starts the next generation: a new
/// MLS group at epoch 0 holding only its own leaf, from a genesis GroupInfo validated as a
/// creation's is. The current coordinates are retired (as a close retires them), the roster stays
/// exactly as it was (the manifest must repeat it), every interval but the activator's new one
/// ends at the activation entry, and every other device comes back through requestLeafRecovery
/// (`add`) at the successor coordinates. The metadata is either the current one encrypted again
/// for the new group, or a new version of the activator's.
enum ActivateReset {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "activateReset", .procedure, maxBodySize: 4 << 20) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let prior = ConversationCoordinates(body["prior"]), let retired = ConversationCoordinates(body["retired"]),
                  let successor = ConversationCoordinates(body["successor"]), let kind = body["conversationKind"]?.text,
                  let requestID = body["resetRequestId"]?.uuid, let transitionID = body["transitionId"]?.uuid,
                  let manifest = body["manifest"], let groupInfo = body["genesisGroupInfo"], let snapshot = body["metadataSnapshot"] else {
                throw ChatRefusal(.invalidRequest, "incomplete activation")
            }
            var expectedRetired = try prior.nextStateVersion()
            expectedRetired.lifecycle = .superseded
            guard retired == expectedRetired else {
                throw ChatRefusal(.invalidRequest, "retired must be prior with stateVersion one higher and lifecycle superseded")
            }
            guard prior.generation < ConversationCoordinates.maxInteger else { throw ChatRefusal(.coordinateOverflow, "generation is at its bound") }
            guard successor.conversationID == prior.conversationID, successor.generation == prior.generation + 1,
                  successor.stateVersion == 0, successor.epoch == 0, successor.lifecycle == .active, successor.groupID != prior.groupID else {
                throw ChatRefusal(.invalidRequest, "successor must be the next generation at stateVersion 0, epoch 0, of a new group")
            }
            guard let actorLeaf = manifest["actorLeaf"], actorLeaf["userDid"]?.text == call.caller,
                  actorLeaf["deviceId"]?.uuid == device.deviceID, actorLeaf["leafOrigin"]?.text == "genesis",
                  actorLeaf["joinKeyPackageRef"] == nil else {
                throw ChatRefusal(.invalidRequest, "manifest: actorLeaf must be the signing device's genesis leaf")
            }
            let genesis = try GenesisGroupInfo(groupInfo, did: call.caller, device: device.deviceID, publicKey: device.publicKey, env: env)
            guard successor.groupID == genesis.group.groupID, successor.groupContextHash == genesis.groupContextHash,
                  successor.confirmationTag == genesis.confirmationTag else {
                throw ChatRefusal(.invalidGenesisGroupInfo, "successor must carry the GroupInfo's group id, GroupContext hash and confirmation tag")
            }
            return try call.execute(verified, device: device) { tx in
                let conversation = try tx.lockConversation(at: prior)
                guard prior.lifecycle == .active else { throw ChatRefusal(.staleCoordinates, "the conversation is closed") }
                guard kind == conversation.kind else { throw ChatRefusal(.invalidRequest, "conversationKind is not the conversation's") }
                guard genesis.group.cipherSuite.rawValue == conversation.cipherSuite else {
                    throw ChatRefusal(.unsupportedMlsProfile, "a reset keeps the conversation's cipher suite")
                }
                let participants = try tx.participants(conversation.id)
                guard let participant = participants.first(where: { $0.did == call.caller }) else {
                    throw ChatRefusal(.notMember, "the account is not a participant")
                }
                guard participant.status == "active", participant.role == "admin" else {
                    throw ChatRefusal(.adminRequired, "only an active admin's device activates a reset")
                }
                try requirePendingRequest(requestID, conversation: conversation, tx: tx)
                try checkRoster(manifest, participants: participants)
                guard try tx.conversationID(group: successor.groupID) == nil else {
                    throw ChatRefusal(.invalidGenesisGroupInfo, "the group id is in use")
                }
                let seq = tx.nextSeq(conversation)
                try checkSnapshot(snapshot, successor: successor, transitionID: transitionID, call: call, device: device,
                                  conversation: conversation, originSeq: seq)
                try tx.recordMetadataNonce(conversation.id, generation: successor.generation, epoch: 0, nonce: snapshot["nonce"]?.bytes ?? [])
                try tx.setMetadataAvatar(ChatBlobBinding(snapshot["avatarBinding"]), conversation: conversation.id,
                                         metadataVersion: snapshot["metadataVersion"]?.integer ?? 0, did: call.caller, now: env.clock())

                try tx.setStatus(.reset, id: requestID, "consumed")
                let transition = ChatTransition(tx: tx, conversation: conversation, request: call.request)
                let ended = try transition.endGeneration(at: seq, transitionID: transitionID, how: .reset)
                try tx.startGeneration(conversation.id, successor: successor, publicState: genesis.group.serialize(),
                                       metadataSnapshot: ChatJSON.render(snapshot))
                try tx.addLeaf(conversation.id, ChatLeaf(did: call.caller, deviceID: device.deviceID, leafIndex: genesis.leafIndex,
                                                         origin: "genesis", joinKeyPackageRef: nil, intervalID: transitionID),
                               startSeq: seq)
                let entry = try transition.record(kind: "resetActivationEntry")
                ChatEvents.accessEnded(ended.filter { !($0.did == call.caller && $0.deviceID == device.deviceID) }, in: tx)
                tx.emit(.tagged("conversationChangedEvent", ["conversationId": .uuid(conversation.id)]),
                        to: .participants(conversation: conversation.id))
                return ChatJSON.object(["retiredCoordinates": .value(retired.value), "successorCoordinates": .value(successor.value),
                                        "entry": .raw(ChatViews.entry(entry, tagged: false))])
            }
        }
    }

    /// The reset request acted on: pending, of this conversation, made at its current coordinates
    /// and within its 24 h (`ResetRequestStale` otherwise).
    static func requirePendingRequest(_ id: ChatUUID, conversation: ChatConversation, tx: ChatTransaction) throws {
        guard let request = try tx.request(.reset, id: id, lock: true), request.conversationID == conversation.id else {
            throw ChatRefusal(.resetRequestNotFound, "no reset request of this conversation has this id")
        }
        switch request.status {
        case "pending" where request.expiresAt > tx.now && request.prior == conversation.coordinates: return
        case "pending", "stale", "expired": throw ChatRefusal(.resetRequestStale, "the reset request is no longer for the current coordinates")
        default: throw ChatRefusal(.resetRequestNotFound, "the reset request is \(request.status)")
        }
    }

    /// The manifest repeats the roster exactly: a reset changes no participant, role or invitation.
    static func checkRoster(_ manifest: ChatValue, participants: [ChatParticipant]) throws {
        let listed = try (manifest["participants"]?.array ?? []).map { item -> ChatParticipant in
            guard let did = item["userDid"]?.text, let role = item["role"]?.text, let status = item["status"]?.text else {
                throw ChatRefusal(.invalidRequest, "manifest: incomplete participant")
            }
            return ChatParticipant(did: did, role: role, status: status, provenance: item["invitationProvenance"].map(ChatJSON.render))
        }
        let byDID = { (list: [ChatParticipant]) in Dictionary(list.map { ($0.did, $0) }, uniquingKeysWith: { first, _ in first }) }
        guard listed.count == participants.count, byDID(listed) == byDID(participants) else {
            throw ChatRefusal(.invalidRequest, "manifest: participants must be the conversation's roster as it is")
        }
    }

    /// The successor's metadata: the current snapshot encrypted again for the new group, or a new
    /// version whose origin is this activation and whose author is the activating device.
    static func checkSnapshot(_ snapshot: ChatValue, successor: ConversationCoordinates, transitionID: ChatUUID, call: SignedCall,
                              device: ChatDevice, conversation: ChatConversation, originSeq: Int64) throws {
        let current = try ChatViews.json(conversation.metadataSnapshot, as: "metadataSnapshot")
        guard let version = current["metadataVersion"]?.integer else { throw XRPCError.internalError }
        if snapshot["metadataVersion"]?.integer == version {
            try MetadataSnapshotCheck.checkReencrypted(snapshot, at: successor, current: conversation.metadataSnapshot)
        } else {
            guard version < ConversationCoordinates.maxInteger else { throw ChatRefusal(.metadataVersionOverflow, "the metadata version is at its bound") }
            try MetadataSnapshotCheck.check(snapshot, at: successor, version: version + 1, origin: transitionID)
            try MetadataSnapshotCheck.checkAuthor(snapshot, request: call.request, publicKey: device.publicKey, originSeq: originSeq)
        }
    }
}
