import ChatProtocol
import JSON
import DeliveryStore
import Foundation
import MLS
import Primitives

/// The contract's views of the store's rows (`#deviceView`, `#conversationState`,
/// `#leafRecoveryView`, `#welcomeView`, the entries): what every response is built from.
enum ChatViews {
    static func time(_ date: Date) -> ChatValue { .text(CanonicalTimestamp(date).description) }

    static func json(_ bytes: [UInt8], as def: String) throws -> ChatValue {
        try ChatProjection().project(json: bytes, as: .ref(def))
    }

    static func device(_ device: ChatDevice) -> ChatValue {
        .object([
            "deviceId": .uuid(device.deviceID), "keyId": .text(device.keyID), "signaturePublicKey": .bytes(device.publicKey),
            "authGeneration": .integer(UInt64(device.authGeneration)), "status": .text(device.isActive ? "active" : "revoked"),
            "createdAt": time(device.createdAt), "updatedAt": time(device.updatedAt),
            "availablePackageCount": .integer(UInt64(min(device.availablePackages, ChatTransaction.maxLivePackages))),
            "reservedPackageCount": .integer(UInt64(min(device.reservedPackages, ChatTransaction.maxLivePackages))),
        ])
    }

    /// `#conversationState` at `conversation.lastSeq`.
    static func state(_ conversation: ChatConversation, participants: [ChatParticipant], leaves: [ChatLeaf],
                      devices: [String: ChatDevice]) throws -> ChatValue {
        var leafCount: [String: Int] = [:]
        for leaf in leaves { leafCount[leaf.did, default: 0] += 1 }
        let participantViews = try participants.map { participant -> ChatValue in
            var members: [String: ChatValue] = [
                "userDid": .text(participant.did), "role": .text(participant.role), "status": .text(participant.status),
                "leafCount": .integer(UInt64(leafCount[participant.did] ?? 0)),
            ]
            if let provenance = participant.provenance { members["invitationProvenance"] = try json(provenance, as: "invitationProvenance") }
            return .object(members)
        }
        let leafViews = leaves.map { leaf -> ChatValue in
            let device = devices["\(leaf.did) \(leaf.deviceID)"]
            var members: [String: ChatValue] = [
                "userDid": .text(leaf.did), "deviceId": .uuid(leaf.deviceID), "leafOrigin": .text(leaf.origin),
                "keyId": .text(device?.keyID ?? ""), "deviceStatus": .text(device?.isActive == true ? "active" : "revoked"),
            ]
            if let ref = leaf.joinKeyPackageRef { members["joinKeyPackageRef"] = .bytes(ref) }
            return .object(members)
        }
        return .object([
            "conversationKind": .text(conversation.kind), "coordinates": conversation.coordinates.value,
            "cipherSuite": .text(CipherSuiteName.name(conversation.cipherSuite)),
            "participants": .array(participantViews), "leaves": .array(leafViews),
            "metadataSnapshot": try json(conversation.metadataSnapshot, as: "metadataSnapshot"),
            "snapshotSeq": .integer(UInt64(conversation.lastSeq)),
        ])
    }

    /// The state of a conversation read in `tx`, with the devices of its leaves.
    static func state(of conversation: ChatConversation, in tx: ChatTransaction) throws -> ChatValue {
        let leaves = try tx.leaves(conversation.id)
        var devices: [String: ChatDevice] = [:]
        for leaf in leaves {
            if let device = try tx.device(did: leaf.did, id: leaf.deviceID) { devices["\(leaf.did) \(leaf.deviceID)"] = device }
        }
        return try state(conversation, participants: try tx.participants(conversation.id), leaves: leaves, devices: devices)
    }

    static func keyPackageArtifact(_ wrapper: [UInt8], ref: [UInt8]) -> ChatValue {
        .object(["framing": .text("mlsMessage"), "contentType": .text("keyPackage"), "bytes": .bytes(wrapper),
                 "sha256": .bytes(HashAlgorithm.sha256.hash(wrapper)), "keyPackageRef": .bytes(ref)])
    }

    static func recovery(_ recovery: ChatRecovery, cipherSuite: UInt16) -> ChatValue {
        let reservation = ChatValue.object([
            "recoveryRequestId": .uuid(recovery.id), "conversationId": .uuid(recovery.conversationID),
            "boundCoordinate": recovery.boundCoordinate.value, "requesterDid": .text(recovery.requesterDID),
            "requesterDeviceId": .uuid(recovery.requesterDeviceID), "requesterKeyId": .text(recovery.requesterKeyID),
            "requesterAuthGeneration": .integer(UInt64(recovery.requesterAuthGeneration)),
            "keyPackageRef": .bytes(recovery.keyPackageRef), "cipherSuite": .text(CipherSuiteName.name(cipherSuite)),
            "purpose": .text("leafRecovery"), "status": .text(recovery.reservationStatus), "expiresAt": time(recovery.expiresAt),
            "keyPackage": keyPackageArtifact(recovery.keyPackage, ref: recovery.keyPackageRef),
        ])
        return .object([
            "recoveryRequestId": .uuid(recovery.id), "conversationId": .uuid(recovery.conversationID),
            "requesterDid": .text(recovery.requesterDID), "requesterDeviceId": .uuid(recovery.requesterDeviceID),
            "recoveryKind": .text(recovery.kind), "boundCoordinate": recovery.boundCoordinate.value, "reservation": reservation,
            "status": .text(recovery.status), "requestedAt": time(recovery.requestedAt), "expiresAt": time(recovery.expiresAt),
        ])
    }

    /// `#leaveRequestView` or `#resetRequestView`.
    static func leaveRequest(_ request: ChatRequest) -> ChatValue {
        var members: [String: ChatValue] = [
            "conversationId": .uuid(request.conversationID), "requesterDid": .text(request.requesterDID),
            "requesterDeviceId": .uuid(request.requesterDeviceID), "prior": request.prior.value, "status": .text(request.status),
            "requestedAt": time(request.requestedAt), "expiresAt": time(request.expiresAt),
        ]
        switch request.kind {
        case .leave: members["leaveRequestId"] = .uuid(request.id)
        case .reset:
            members["resetRequestId"] = .uuid(request.id)
            members["reason"] = .text(request.reason ?? "")
        }
        return .object(members)
    }

    static func resetRequest(_ request: ChatRequest) -> ChatValue { leaveRequest(request) }

    static func welcome(_ welcome: ChatWelcome) -> ChatValue {
        .object([
            "welcomeId": .uuid(welcome.id), "conversationId": .uuid(welcome.conversationID),
            "transitionSeq": .integer(UInt64(welcome.transitionSeq)), "coordinates": welcome.coordinates.value,
            "status": .text(welcome.status), "opaqueWelcome": .bytes(welcome.opaqueWelcome), "sha256": .bytes(welcome.sha256),
            "recipientDid": .text(welcome.recipientDID), "recipientDeviceId": .uuid(welcome.recipientDeviceID),
            "provenance": .object(["recoveryRequestId": .uuid(welcome.recoveryRequestID), "keyPackageRef": .bytes(welcome.keyPackageRef)]),
            "expiresAt": time(welcome.expiresAt),
        ])
    }

    static func recoveryWork(_ work: ChatRecoveryWork) -> ChatValue {
        var members: [String: ChatValue] = [
            "recoveryWorkId": .uuid(work.id), "conversationId": .uuid(work.conversationID), "recipientDid": .text(work.recipientDID),
            "recipientDeviceId": .uuid(work.recipientDeviceID), "sourceKind": .text(work.sourceKind), "sourceId": .uuid(work.sourceID),
            "sourceCoordinate": work.sourceCoordinate.value, "status": .text(work.status), "createdAt": time(work.createdAt),
        ]
        let variant: String
        switch (work.status, work.terminalTransitionID, work.terminalAt) {
        case ("completed", let transition?, let at?):
            members["terminalTransitionId"] = .uuid(transition)
            members["terminalAt"] = time(at)
            variant = "recoveryWorkCompletedByTransitionView"
        case ("superseded", let transition?, let at?):
            members["terminalTransitionId"] = .uuid(transition)
            members["terminalAt"] = time(at)
            variant = "recoveryWorkSupersededByTransitionView"
        default:
            members["status"] = .text("pending")
            variant = "recoveryWorkPendingView"
        }
        return .tagged(variant, members)
    }

    /// The defs of the server's own fields an entry variant carries beside the signed request.
    static let serverFieldDefs = ["recovery": "leafRecoveryView", "tombstone": "conversationCloseTombstone"]

    /// An entry as its `#conversationEntry` variant, the stored signed request spliced in as stored;
    /// `tagged` where the lexicon takes the union (getEntries, submitTransition), untagged where it
    /// names the variant itself (sendMessage's `applicationEntry`).
    static func entry(_ entry: ChatEntry, tagged: Bool = true) -> [UInt8] {
        var members: [String: ChatJSON.Member] = [
            "entryId": .value(.uuid(entry.entryID)), "conversationId": .value(.uuid(entry.conversationID)),
            "seq": .value(.integer(UInt64(entry.seq))), "signedRequest": .raw(entry.signedRequest),
            "receivedAt": .value(time(entry.receivedAt)),
        ]
        if tagged { members["$type"] = .value(.text(ChatSchema.typePrefix + entry.kind)) }
        if let fields = entry.serverFields, let document = try? JSONDocument(parsing: fields) {
            for (key, node) in document.members(document.root) {
                guard let def = serverFieldDefs[key],
                      let value = try? ChatProjection().project(document, node, as: .ref(def)) else { continue }
                members[key] = .value(value)
            }
        }
        return ChatJSON.object(members)
    }
}
