import ATProto
import Basics
import ChatProtocol
import Foundation
import MLS
import Primitives

extension ChatClient {
    // MARK: Conversations

    /// A conversation's current `#conversationState`.
    public func state(_ conversation: ChatUUID) throws -> ChatValue {
        guard let state = try conversationState(conversation)["state"] else { throw MLSClientError.invalidServerData("no state") }
        return state
    }

    /// getConversationState's whole answer: the state and the pending leave and reset requests.
    public func conversationState(_ conversation: ChatUUID) throws -> ChatValue {
        try query("getConversationState", [("conversationId", conversation.description)])
    }

    public func coordinates(_ conversation: ChatUUID) throws -> ConversationCoordinates {
        guard let coordinates = ConversationCoordinates(try state(conversation)["coordinates"]) else {
            throw MLSClientError.invalidServerData("no coordinates")
        }
        return coordinates
    }

    /// Creates a conversation holding this device's leaf and inviting `invitees` (a group, or with
    /// `direct` the one other participant).
    @discardableResult
    public func create(inviting invitees: [String], direct: Bool = false, title: String = "") throws -> (id: ChatUUID, result: ChatValue) {
        let creation = try prepareCreation(inviting: invitees, direct: direct, title: title)
        api.capture?.signed(creation.request, publicKey: device.publicKey)
        let result = try api.signed("createConversation", creation.request)["result"] ?? .object([:])
        if result.type == ChatSchema.typePrefix + "conversationCreatedResult" {
            conversations[creation.id] = ChatMembership(group: creation.group, kind: direct ? "direct" : "group", lastSeq: 1, joinedAt: 1,
                                                        metadata: creation.plaintext, metadataVersion: 1, metadataOrigin: creation.transition,
                                                        authorProof: creation.authorProof, title: title)
            return (creation.id, result)
        }
        return (result["conversationId"]?.uuid ?? creation.id, result)
    }

    /// A signed createConversation request inviting `invitees`, to send as it is (a test's flood):
    /// the device keeps nothing of the group it makes.
    public func creationRequest(inviting invitees: [String], direct: Bool = false, title: String = "") throws -> SignedRequest {
        try prepareCreation(inviting: invitees, direct: direct, title: title).request
    }

    private struct Creation {
        let id: ChatUUID
        let transition: ChatUUID
        let group: Group
        let plaintext: [UInt8]
        let authorProof: ChatValue
        let request: SignedRequest
    }

    /// The epoch-0 group with this device's leaf, its metadata, and the signed creation body.
    private func prepareCreation(inviting invitees: [String], direct: Bool, title: String) throws -> Creation {
        let id = ChatUUID.random(), transition = ChatUUID.random()
        let genesis = try Genesis(self, conversation: id, generation: 0)
        let provenance = ChatValue.object(["invitationTransitionId": .uuid(transition), "invitedByDid": .text(device.did.rawValue),
                                           "invitedByDeviceId": .uuid(device.deviceID)])
        var participants = [ChatValue.object(["userDid": .text(device.did.rawValue), "role": .text("admin"), "status": .text("active")])]
        for did in invitees {
            participants.append(.object(["userDid": .text(did), "role": .text(direct ? "admin" : "member"),
                                         "status": .text("pending"), "invitationProvenance": provenance]))
        }
        let authorProof = self.authorProof(origin: transition, seq: 1)
        let plaintext = ChatMetadata.plaintext(title: title, version: 1, origin: transition, device: device)
        let snapshot = try ChatMetadata.seal(plaintext, version: 1, origin: transition, authorProof: authorProof,
                                             coordinates: genesis.coordinates, group: genesis.group)
        let request = SignedRequest.sign(body(.creation, [
            "conversationId": .uuid(id), "conversationKind": .text(direct ? "direct" : "group"), "transitionId": .uuid(transition),
            "absence": .bool(true), "next": genesis.coordinates.value,
            "manifest": genesis.manifest(participants, device: device), "genesisGroupInfo": genesis.groupInfo,
            "metadataSnapshot": snapshot,
        ]), kind: .creation, key: device.key)
        return Creation(id: id, transition: transition, group: genesis.group, plaintext: plaintext, authorProof: authorProof, request: request)
    }

    /// A new one-leaf group of this device and what a creation or a reset activation says of it:
    /// its coordinates (epoch 0) and its genesis GroupInfo artifact.
    struct Genesis {
        let group: Group
        let coordinates: ConversationCoordinates
        let groupInfo: ChatValue

        init(_ client: ChatClient, conversation: ChatUUID, generation: UInt64) throws {
            let now = UInt64(Date().timeIntervalSince1970)
            group = try Group.create(suite: client.suite, credential: client.device.credential, signingKey: client.device.signingKey,
                                     lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 2_592_000))
            let info = try group.makeGroupInfo()
            coordinates = ConversationCoordinates(conversationID: conversation, generation: generation, stateVersion: 0, groupID: group.groupID,
                                                  epoch: 0, groupContextHash: HashAlgorithm.sha256.hash(group.groupContext.encoded()),
                                                  confirmationTag: info.confirmationTag, lifecycle: .active)
            let bytes = MLSMessage(body: .groupInfo(info)).encoded()
            groupInfo = .object(["framing": .text("mlsMessage"), "contentType": .text("groupInfo"), "bytes": .bytes(bytes),
                                 "sha256": .bytes(HashAlgorithm.sha256.hash(bytes))])
        }

        /// `#creationManifest` / `#resetActivationManifest`: the participants in the order creation
        /// sorts them (by DID, bytewise) and this device's genesis leaf.
        func manifest(_ participants: [ChatValue], device: ChatDeviceKey) -> ChatValue {
            let sorted = participants.sorted { Array(($0["userDid"]?.text ?? "").utf8).lexicographicallyPrecedes(Array(($1["userDid"]?.text ?? "").utf8)) }
            return .object(["participants": .array(sorted),
                            "actorLeaf": .object(["userDid": .text(device.did.rawValue), "deviceId": .uuid(device.deviceID),
                                                  "leafOrigin": .text("genesis")])])
        }
    }

    /// `#metadataAuthorProof` of metadata this device writes as an active admin in transition
    /// `origin`, whose entry gets `seq`.
    func authorProof(origin: ChatUUID, seq: UInt64) -> ChatValue {
        .object([
            "authorDid": .text(device.did.rawValue), "authorDeviceId": .uuid(device.deviceID), "authorKeyId": .text(device.keyID),
            "signaturePublicKey": .bytes(device.publicKey), "authGenerationAtOrigin": .integer(authGeneration),
            "originTransitionId": .uuid(origin), "originSeq": .integer(seq), "roleAtOrigin": .text("admin"),
            "deviceStatusAtOrigin": .text("active"),
        ])
    }

    /// Accepts an invitation: the service reserves one of this device's KeyPackages for an add-kind
    /// recovery that a current member then fulfils. Returns the `#leafRecoveryView`.
    @discardableResult
    public func accept(_ conversation: ChatUUID) throws -> ChatValue {
        let state = try self.state(conversation)
        guard let prior = ConversationCoordinates(state["coordinates"]),
              let me = state["participants"]?.array?.first(where: { $0["userDid"]?.text == device.did.rawValue }),
              let provenance = me["invitationProvenance"] else { throw MLSClientError.notAMember(conversation.description) }
        let next = try prior.nextStateVersion()
        let output = try signed("acceptConversation", .participantAcceptance, [
            "transitionId": .uuid(.random()), "recoveryRequestId": .uuid(.random()), "prior": prior.value, "next": next.value,
            "invitationProvenance": provenance,
        ])
        return output["recovery"] ?? .object([:])
    }

    /// What a leaf recovery asks for (defs `leafRecoveryKind`).
    public enum RecoveryKind: String, Sendable {
        /// A leaf for a device that holds none: a new device of a participant, or every device but
        /// the admin's after a reset.
        case add
        /// A new leaf for a device that holds one it can no longer use (its state is lost or broken):
        /// one commit removes the old leaf and adds the new.
        case replace
    }

    /// Asks for a leaf in a conversation this account takes part in; a current leaf fulfils it
    /// (`fulfil`) and the device joins from the Welcome. Returns the `#leafRecoveryView`.
    @discardableResult
    public func requestLeaf(_ conversation: ChatUUID, kind: RecoveryKind = .add) throws -> ChatValue {
        try signed("requestLeafRecovery", .leafRecoveryRequest, [
            "recoveryRequestId": .uuid(.random()), "prior": try coordinates(conversation).value, "recoveryKind": .text(kind.rawValue),
        ])["recovery"] ?? .object([:])
    }
}
