import ChatProtocol
import DeliveryStore
import Foundation
import MLS
import Primitives

/// `blue.catbird.chat.submitTransition`: one endpoint, five signed shapes (defs `signedTransition`).
/// Served: `commitTransition` (a commit that changes no membership: the committer's update path)
/// and `leafRecoveryFulfillment` (a different current leaf adds the device of an open recovery
/// request with the KeyPackage reserved for it, and one Welcome for that device). Both are
/// validated as every commit is (`ChatCommit`) and compare-and-swap the conversation's coordinates.
/// Policy, metadata and leave fulfilment answer `CutoverRequired` for now.
enum SubmitTransition {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        // A 1 MiB commit and a 1 MiB Welcome, as base64 JSON, and the rest of the body.
        XRPCMethod(ChatMethods.prefix + "submitTransition", .procedure, maxBodySize: 4 << 20) { context in
            let call = try SignedCall(context, env: env)
            switch call.request.kind {
            case .commitTransition, .leafRecoveryFulfillment: break
            default: throw ChatRefusal(.cutoverRequired, "\(call.request.kind.rawValue) is not served by this service yet")
            }
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let prior = ConversationCoordinates(body["prior"]), let next = ConversationCoordinates(body["next"]),
                  let manifest = body["manifest"], let snapshot = body["metadataSnapshot"] else {
                throw ChatRefusal(.invalidRequest, "incomplete transition")
            }
            let fulfilment = call.request.kind == .leafRecoveryFulfillment
            let expected = try expectedManifest(manifest, fulfils: fulfilment ? body["recoveryRequestId"]?.uuid : nil)
            let consent = try ChatConsent.joining(expected.add?["userDid"]?.text, prior.conversationID,
                                                  addedBy: (call.caller, device.deviceID), env: env)
            return try env.admit(consent, context) { try call.execute(verified, device: device) { tx in
                let conversation = try tx.lockConversation(at: prior)
                guard let actorLeaf = try tx.leaf(conversation.id, did: call.caller, device: device.deviceID) else {
                    throw ChatRefusal(.deviceNotLeaf, "the signing device holds no leaf in this conversation")
                }
                var recovery: ChatRecovery?
                var trusted: Set<[UInt8]> = []
                if let recoveryID = expected.recoveryID {
                    let open = try openRecovery(recoveryID, manifest: expected, conversation: conversation, actor: device, tx: tx)
                    recovery = open
                    trusted.insert(open.keyPackageRef)
                }
                let commit = try ChatCommit(body, conversation: conversation, actorLeaf: actorLeaf, device: device, env: env,
                                            now: tx.now, trustedKeyPackageRefs: trusted)
                guard commit.summary.removed.isEmpty else {
                    throw ChatRefusal(.cutoverRequired, "removing leaves is not served by this service yet")
                }
                guard commit.summary.added.map(\.keyPackageRef) == (recovery.map { [$0.keyPackageRef] } ?? []) else {
                    throw ChatRefusal(.invalidCommit, "a commit adds only the device of the recovery request it fulfils, with its reserved KeyPackage")
                }
                try checkSnapshot(snapshot, next: next, conversation: conversation)
                try tx.recordMetadataNonce(conversation.id, generation: next.generation, epoch: next.epoch, nonce: snapshot["nonce"]?.bytes ?? [])

                let entry = try ChatTransition(tx: tx, conversation: conversation, request: call.request)
                    .apply(to: next, kind: fulfilment ? "leafRecoveryFulfillmentEntry" : "commitEntry",
                           publicState: commit.next.serialize(), metadataSnapshot: ChatJSON.render(snapshot), keepingRecovery: recovery?.id)
                var welcomes: [ChatValue] = []
                if var recovery, let added = commit.summary.added.first, let bundle = manifest["welcomeBundle"] {
                    let welcome = try deliverWelcome(bundle, recovery: recovery, added: added, entry: entry,
                                                     transitionID: body["transitionId"]?.uuid ?? entry.entryID, next: next,
                                                     conversation: conversation, tx: tx, env: env)
                    welcomes.append(ChatViews.welcome(welcome))
                    try tx.closeRecovery(recovery.id, status: "fulfilled")
                    recovery.status = "fulfilled"
                    ChatEvents.recovery(recovery, status: "fulfilled", in: tx)
                }
                return ChatJSON.object(["coordinates": .value(next.value), "entry": .raw(ChatViews.entry(entry)),
                                        "welcomes": .value(.array(welcomes))])
            } }
        }
    }

    /// What a served transition's manifest may hold: nothing for a plain commit; for a fulfilment,
    /// exactly the one addLeafByRecovery of the request, its id, and a Welcome bundle for that device.
    struct ExpectedManifest {
        var recoveryID: ChatUUID?
        var add: ChatValue?
    }

    static func expectedManifest(_ manifest: ChatValue, fulfils recoveryID: ChatUUID?) throws -> ExpectedManifest {
        guard manifest["participantChanges"]?.array?.isEmpty == true else {
            throw ChatRefusal(.cutoverRequired, "participant changes are not served by this service yet")
        }
        let leafChanges = manifest["leafChanges"]?.array ?? []
        guard let recoveryID else {
            guard leafChanges.isEmpty, manifest["welcomeBundle"] == nil, manifest["leafRecoveryRequestId"] == nil else {
                throw ChatRefusal(.invalidCommit, "an Add is only the fulfilment of a device's own recovery request (leafRecoveryFulfillment)")
            }
            return ExpectedManifest()
        }
        guard leafChanges.count == 1, let add = leafChanges.first, add.type == ChatSchema.typePrefix + "addLeafByRecovery",
              add["recoveryRequestId"]?.uuid == recoveryID, manifest["leafRecoveryRequestId"]?.uuid == recoveryID,
              manifest["welcomeBundle"] != nil else {
            throw ChatRefusal(.invalidWelcomeMapping, "a fulfilment adds exactly the requesting device, names the request and carries its Welcome")
        }
        return ExpectedManifest(recoveryID: recoveryID, add: add)
    }

    /// The request being fulfilled: open, bound to these very coordinates, for another device than
    /// the fulfilling one, whose device is still active and not yet a leaf, and named exactly by the manifest.
    static func openRecovery(_ id: ChatUUID, manifest: ExpectedManifest, conversation: ChatConversation, actor: ChatDevice,
                             tx: ChatTransaction) throws -> ChatRecovery {
        guard let recovery = try tx.recovery(id, lock: true), recovery.conversationID == conversation.id else {
            throw ChatRefusal(.leafRecoveryNotFound, "no recovery request of this conversation has this id")
        }
        switch recovery.status {
        case "open" where recovery.expiresAt > tx.now: break
        case "open", "expired": throw ChatRefusal(.leafRecoveryExpired, "the recovery request expired")
        case "superseded": throw ChatRefusal(.leafRecoverySuperseded, "the recovery request was superseded")
        default: throw ChatRefusal(.leafRecoveryNotFound, "the recovery request is \(recovery.status)")
        }
        guard recovery.boundCoordinate == conversation.coordinates else {
            throw ChatRefusal(.leafRecoverySuperseded, "the recovery request is bound to other coordinates")
        }
        guard !(recovery.requesterDID == actor.userDID && recovery.requesterDeviceID == actor.deviceID) else {
            throw ChatRefusal(.deviceNotLeaf, "a device cannot fulfil its own recovery request")
        }
        guard let add = manifest.add, add["userDid"]?.text == recovery.requesterDID, add["deviceId"]?.uuid == recovery.requesterDeviceID,
              add["keyPackageRef"]?.bytes == recovery.keyPackageRef else {
            throw ChatRefusal(.invalidWelcomeMapping, "the Add must name the requesting device and its reserved KeyPackage")
        }
        guard try tx.device(did: recovery.requesterDID, id: recovery.requesterDeviceID)?.isActive == true,
              try tx.participant(conversation.id, did: recovery.requesterDID)?.status == "active" else {
            throw ChatRefusal(.leafRecoverySuperseded, "the requesting device or account is no longer active here")
        }
        guard try tx.leaf(conversation.id, did: recovery.requesterDID, device: recovery.requesterDeviceID) == nil else {
            throw ChatRefusal(.duplicateDeviceLeaf, "the requesting device already holds a leaf")
        }
        return recovery
    }

    /// Epoch-changing commits carry the same metadata (version, origin, author) encrypted for the
    /// new epoch (defs `metadataSnapshot`).
    static func checkSnapshot(_ snapshot: ChatValue, next: ConversationCoordinates, conversation: ChatConversation) throws {
        let current = try ChatViews.json(conversation.metadataSnapshot, as: "metadataSnapshot")
        guard let version = current["metadataVersion"]?.integer, let origin = current["originTransitionId"]?.uuid else {
            throw XRPCError.internalError
        }
        try MetadataSnapshotCheck.check(snapshot, at: next, version: version, origin: origin)
        guard snapshot["authorProof"] == current["authorProof"] else {
            throw ChatRefusal(.invalidMetadataSnapshot, "an epoch change keeps the snapshot's author proof")
        }
    }

    /// The fulfilment's Welcome (defs `welcomeBundle`): one delivery, to the requesting device, for
    /// its reserved KeyPackage, and a Welcome whose one EncryptedGroupSecrets addresses exactly that
    /// package. Stored pending until the device acknowledges or rejects it, or the package's life ends.
    static func deliverWelcome(_ bundle: ChatValue, recovery: ChatRecovery, added: AddedMember, entry: ChatEntry,
                               transitionID: ChatUUID, next: ConversationCoordinates, conversation: ChatConversation, tx: ChatTransaction,
                               env: ChatEnvironment) throws -> ChatWelcome {
        func refuse(_ reason: String) -> ChatRefusal { ChatRefusal(.invalidWelcomeMapping, reason) }
        guard let id = bundle["welcomeId"]?.uuid, let bytes = bundle["opaqueWelcome"]?.bytes, let sha256 = bundle["sha256"]?.bytes,
              let delivery = bundle["deliveries"]?.array?.first else { throw refuse("incomplete Welcome bundle") }
        guard HashAlgorithm.sha256.hash(bytes) == sha256 else { throw ChatRefusal(.invalidMlsArtifact, "sha256 is not the hash of the Welcome") }
        guard delivery["recipientDid"]?.text == recovery.requesterDID, delivery["recipientDeviceId"]?.uuid == recovery.requesterDeviceID,
              delivery["provenance"]?["recoveryRequestId"]?.uuid == recovery.id,
              delivery["provenance"]?["keyPackageRef"]?.bytes == recovery.keyPackageRef else {
            throw refuse("the delivery must name the requesting device and its request")
        }
        let welcome: Welcome
        do {
            welcome = try MLSInput.welcome(bytes, limits: DecodingLimits(maxVectorElements: 1))
        } catch {
            throw refuse(error.message)
        }
        guard welcome.cipherSuite == conversation.cipherSuite, welcome.secrets.map(\.newMember) == [recovery.keyPackageRef] else {
            throw refuse("the Welcome must address exactly the reserved KeyPackage")
        }
        let leaf = ChatLeaf(did: recovery.requesterDID, deviceID: recovery.requesterDeviceID, leafIndex: added.leafIndex,
                            origin: "keyPackage", joinKeyPackageRef: recovery.keyPackageRef,
                            intervalID: transitionID)
        try tx.addLeaf(conversation.id, leaf, startSeq: entry.seq)
        try tx.completeRecoveryWork(conversation.id, did: recovery.requesterDID, device: recovery.requesterDeviceID,
                                    transitionID: transitionID)
        let notAfter: Date
        if case .keyPackage(let lifetime) = added.keyPackage.leafNode.leafNodeSource {
            notAfter = Date(timeIntervalSince1970: Double(min(lifetime.notAfter, UInt64(Int64.max / 2))))
        } else {
            notAfter = recovery.expiresAt
        }
        let stored = ChatWelcome(id: id, conversationID: conversation.id, transitionSeq: entry.seq, coordinates: next, status: "pending",
                                 opaqueWelcome: bytes, sha256: sha256, recipientDID: recovery.requesterDID,
                                 recipientDeviceID: recovery.requesterDeviceID, recoveryRequestID: recovery.id,
                                 keyPackageRef: recovery.keyPackageRef, expiresAt: notAfter)
        try tx.store(stored)
        tx.emit(.tagged("welcomeAvailableEvent", ["welcomeId": .uuid(id), "conversationId": .uuid(conversation.id)]),
                to: .device(did: recovery.requesterDID, device: recovery.requesterDeviceID))
        return stored
    }
}
