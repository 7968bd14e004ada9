import ChatProtocol
import DeliveryStore
import Foundation
import MLS
import Primitives

/// A leaf recovery's fulfilment (defs `leafRecoveryFulfillmentBody`): the open request it fulfils
/// and the Welcome it delivers.
enum RecoveryFulfilment {
    /// The request being fulfilled: open, bound to these very coordinates, for another device than
    /// the fulfilling one, whose device is still active and holds a leaf exactly when it asked for a
    /// replacement, and named exactly by the manifest (one addition, the request, its Welcome).
    static func openRecovery(_ id: ChatUUID, manifest: TransitionManifest, conversation: ChatConversation, actor: ChatDevice,
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
        guard manifest.additions.count == 1, let add = manifest.additions.first, add["recoveryRequestId"]?.uuid == id,
              manifest.leafRecoveryRequestID == id, manifest.welcomeBundle != nil else {
            throw ChatRefusal(.invalidWelcomeMapping, "a fulfilment adds exactly the requesting device, names the request and carries its Welcome")
        }
        guard add["userDid"]?.text == recovery.requesterDID, add["deviceId"]?.uuid == recovery.requesterDeviceID,
              add["keyPackageRef"]?.bytes == recovery.keyPackageRef else {
            throw ChatRefusal(.invalidWelcomeMapping, "the Add must name the requesting device and its reserved KeyPackage")
        }
        guard try tx.device(did: recovery.requesterDID, id: recovery.requesterDeviceID)?.isActive == true,
              try tx.participant(conversation.id, did: recovery.requesterDID)?.status == "active" else {
            throw ChatRefusal(.leafRecoverySuperseded, "the requesting device or account is no longer active here")
        }
        // An add is for a device without a leaf; a replace swaps the leaf the device holds.
        let holdsLeaf = try tx.leaf(conversation.id, did: recovery.requesterDID, device: recovery.requesterDeviceID) != nil
        guard holdsLeaf == (recovery.kind == "replace") else {
            throw holdsLeaf ? ChatRefusal(.duplicateDeviceLeaf, "the requesting device already holds a leaf")
                            : ChatRefusal(.leafRecoverySuperseded, "the device asked to replace a leaf it no longer holds")
        }
        return recovery
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
