import ChatProtocol
import DeliveryStore
import Foundation
import MLS

/// The shapes of submitTransition that carry an MLS commit (defs `commitTransitionBody`,
/// `leafRecoveryFulfillmentBody`, `leaveCommitFulfillmentBody`), each validated as every commit is
/// (`ChatCommit`) and then held to what its manifest declares:
/// - a plain commit adds no one and changes no participant; its Removes (of any leaf but the
///   committer's own) are exactly its manifest's `removeLeaf`s, and their owners stay participants;
/// - a recovery's fulfilment adds exactly the requesting device with its reserved KeyPackage (and,
///   for a replacement, removes exactly that device's current leaf), with one Welcome for it;
/// - a leave's fulfilment, by another account's device, removes every leaf of the requester, who
///   stops being a participant.
/// The metadata snapshot is the current one encrypted again for the new epoch.
enum CommitTransition {
    enum Shape {
        case plain
        case recovery(ChatRecovery)
        case leave(ChatRequest)
    }

    static func execute(_ call: SignedCall, context: AuthenticatedContext, device: ChatDevice, verified: VerifiedSignedRequest, env: ChatEnvironment) throws -> XRPCOutput {
        let body = call.request.body
        guard let prior = ConversationCoordinates(body["prior"]), let next = ConversationCoordinates(body["next"]),
              let manifestValue = body["manifest"], let snapshot = body["metadataSnapshot"],
              let transitionID = body["transitionId"]?.uuid else {
            throw ChatRefusal(.invalidRequest, "incomplete transition")
        }
        let manifest = try TransitionManifest(manifestValue)
        // A device added by a recovery's fulfilment: its account and the other participants must not block each other.
        let consent = try ChatConsent.joining(manifest.additions.first?["userDid"]?.text, prior.conversationID,
                                              addedBy: (call.caller, device.deviceID), env: env)
        return try env.admit(consent, context) { try call.execute(verified, device: device) { tx in
            let conversation = try tx.lockConversation(at: prior)
            guard prior.lifecycle == .active else { throw ChatRefusal(.staleCoordinates, "the conversation's generation is over") }
            guard let actorLeaf = try tx.leaf(conversation.id, did: call.caller, device: device.deviceID) else {
                throw ChatRefusal(.deviceNotLeaf, "the signing device holds no leaf in this conversation")
            }
            var roster = ChatRoster(participants: try tx.participants(conversation.id), leaves: try tx.leaves(conversation.id))
            let shape = try self.shape(of: call, manifest: manifest, conversation: conversation, device: device, tx: tx)
            var trusted: Set<[UInt8]> = []
            if case .recovery(let recovery) = shape { trusted.insert(recovery.keyPackageRef) }

            let commit = try ChatCommit(body, conversation: conversation, actorLeaf: actorLeaf, device: device, env: env,
                                        now: tx.now, trustedKeyPackageRefs: trusted)
            // The leaves the commit removes, as the manifest must name them.
            let removed = try commit.summary.removed.map { member -> ChatLeaf in
                guard let leaf = roster.leaves.first(where: { $0.leafIndex == member.leafIndex }) else {
                    throw ChatRefusal(.invalidCommit, "the commit removes leaf \(member.leafIndex), which holds no device of this conversation")
                }
                return leaf
            }
            guard Set(removed.map { TransitionManifest.Device(did: $0.did, deviceID: $0.deviceID) }) == Set(manifest.removals) else {
                throw ChatRefusal(.invalidLeaveManifest, "the manifest's removeLeaf changes must name exactly the leaves the commit removes")
            }
            for leaf in removed { try roster.removeLeaf(did: leaf.did, device: leaf.deviceID) }
            let addedRefs = commit.summary.added.map(\.keyPackageRef)

            var keptRecovery: ChatUUID?
            var kind = "commitEntry"
            switch shape {
            case .plain:
                guard manifest.participantChanges.isEmpty else {
                    throw ChatRefusal(.invalidRequest, "a commit changes no participant: policy transitions do, and leave fulfilments")
                }
                guard manifest.namesNoRecovery, addedRefs.isEmpty else {
                    throw ChatRefusal(.invalidCommit, "an Add is only the fulfilment of a device's own recovery request (leafRecoveryFulfillment)")
                }
            case .recovery(let recovery):
                guard manifest.participantChanges.isEmpty else { throw ChatRefusal(.invalidRequest, "a fulfilment changes no participant") }
                guard addedRefs == [recovery.keyPackageRef] else {
                    throw ChatRefusal(.invalidCommit, "a fulfilment adds only the requesting device, with its reserved KeyPackage")
                }
                let replaced = removed.map { TransitionManifest.Device(did: $0.did, deviceID: $0.deviceID) }
                let target = TransitionManifest.Device(did: recovery.requesterDID, deviceID: recovery.requesterDeviceID)
                guard replaced == (recovery.kind == "replace" ? [target] : []) else {
                    throw ChatRefusal(.invalidCommit, recovery.kind == "replace"
                        ? "a replacement removes exactly the requesting device's current leaf" : "an add-kind fulfilment removes no leaf")
                }
                if let added = commit.summary.added.first {
                    roster.addLeaf(ChatLeaf(did: recovery.requesterDID, deviceID: recovery.requesterDeviceID, leafIndex: added.leafIndex,
                                            origin: "keyPackage", joinKeyPackageRef: recovery.keyPackageRef, intervalID: transitionID))
                }
                keptRecovery = recovery.id
                kind = "leafRecoveryFulfillmentEntry"
            case .leave(let request):
                guard case .remove(let did)? = manifest.participantChanges.first, did == request.requesterDID,
                      manifest.participantChanges.count == 1 else {
                    throw ChatRefusal(.invalidLeaveManifest, "a leave's fulfilment removes exactly its requester as a participant")
                }
                guard manifest.namesNoRecovery, addedRefs.isEmpty else { throw ChatRefusal(.invalidCommit, "a leave's fulfilment adds no one") }
                guard !removed.isEmpty, roster.leaves(of: request.requesterDID).isEmpty else {
                    throw ChatRefusal(.invalidLeaveManifest, "a leave's fulfilment removes every leaf of its requester")
                }
                guard removed.allSatisfy({ $0.did == request.requesterDID }) else {
                    throw ChatRefusal(.invalidLeaveManifest, "a leave's fulfilment removes only its requester's leaves")
                }
                try roster.apply(.remove(did: request.requesterDID), removeWithLeaves: true)
                kind = "leaveCommitFulfillmentEntry"
            }
            try roster.checkResult()
            try MetadataSnapshotCheck.checkReencrypted(snapshot, at: next, current: conversation.metadataSnapshot)
            try tx.recordMetadataNonce(conversation.id, generation: next.generation, epoch: next.epoch, nonce: snapshot["nonce"]?.bytes ?? [])

            // The entry this transition becomes removes the leaves: their intervals end with it.
            let seq = tx.nextSeq(conversation)
            var ended: [ChatEndedInterval] = []
            for leaf in removed {
                let replaced: Bool
                if case .recovery(let recovery) = shape { replaced = recovery.requesterDID == leaf.did && recovery.requesterDeviceID == leaf.deviceID } else { replaced = false }
                ended += try tx.endLeaves(conversation.id, [(leaf.did, leaf.deviceID)], at: seq, how: replaced ? .replaced : .removed)
            }
            if case .leave(var request) = shape {
                try tx.removeParticipant(conversation.id, did: request.requesterDID)
                try tx.setStatus(.leave, id: request.id, "fulfilled")
                request.status = "fulfilled"
                ChatEvents.leaveRequest(request, in: tx)
            }
            let entry = try ChatTransition(tx: tx, conversation: conversation, request: call.request)
                .apply(to: next, kind: kind, publicState: commit.next.serialize(), metadataSnapshot: ChatJSON.render(snapshot),
                       keepingRecovery: keptRecovery)
            var welcomes: [ChatValue] = []
            if case .recovery(var recovery) = shape, let added = commit.summary.added.first, let bundle = manifest.welcomeBundle {
                let welcome = try RecoveryFulfilment.deliverWelcome(bundle, recovery: recovery, added: added, entry: entry,
                                                                    transitionID: transitionID, next: next, conversation: conversation,
                                                                    tx: tx, env: env)
                welcomes.append(ChatViews.welcome(welcome))
                try tx.closeRecovery(recovery.id, status: "fulfilled")
                recovery.status = "fulfilled"
                ChatEvents.recovery(recovery, status: "fulfilled", in: tx)
                // A replaced leaf's device goes on in its new leaf: its access did not end.
                ChatEvents.accessEnded(ended.filter { !($0.did == recovery.requesterDID && $0.deviceID == recovery.requesterDeviceID) }, in: tx)
            } else {
                ChatEvents.accessEnded(ended, in: tx)
            }
            return SubmitTransition.result(next, entry: entry, welcomes: welcomes)
        } }
    }

    /// Which commit this is, with the request it fulfils checked.
    static func shape(of call: SignedCall, manifest: TransitionManifest, conversation: ChatConversation, device: ChatDevice,
                      tx: ChatTransaction) throws -> Shape {
        switch call.request.kind {
        case .leafRecoveryFulfillment:
            guard let id = call.request.body["recoveryRequestId"]?.uuid else { throw ChatRefusal(.invalidRequest, "incomplete fulfilment") }
            return .recovery(try RecoveryFulfilment.openRecovery(id, manifest: manifest, conversation: conversation, actor: device, tx: tx))
        case .leaveCommitFulfillment:
            guard let id = call.request.body["leaveRequestId"]?.uuid else { throw ChatRefusal(.invalidRequest, "incomplete fulfilment") }
            return .leave(try pendingLeave(id, conversation: conversation, actor: call.caller, tx: tx))
        default:
            return .plain
        }
    }

    /// The leave request a fulfilment names: of this conversation, pending, bound to its current
    /// coordinates, within its 24 h, and of another account than the fulfilling device's.
    static func pendingLeave(_ id: ChatUUID, conversation: ChatConversation, actor: String, tx: ChatTransaction) throws -> ChatRequest {
        guard conversation.kind == "group" else {
            throw ChatRefusal(.directParticipantMutationForbidden, "a direct conversation has no leave requests")
        }
        guard let request = try tx.request(.leave, id: id, lock: true), request.conversationID == conversation.id else {
            throw ChatRefusal(.leaveRequestNotFound, "no leave request of this conversation has this id")
        }
        switch request.status {
        case "pending" where request.expiresAt <= tx.now, "expired": throw ChatRefusal(.leaveRequestExpired, "the leave request expired")
        case "pending": break
        case "stale": throw ChatRefusal(.leaveRequestStale, "the leave request was made at earlier coordinates: it is asked again")
        default: throw ChatRefusal(.leaveRequestNotFound, "the leave request is \(request.status)")
        }
        guard request.prior == conversation.coordinates else {
            throw ChatRefusal(.leaveRequestStale, "the leave request was made at other coordinates")
        }
        guard request.requesterDID != actor else {
            throw ChatRefusal(.committerSelfRemovalForbidden, "another participant's device fulfils a leave request")
        }
        return request
    }
}
