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
        guard let state = try query("getConversationState", [("conversationId", conversation.description)])["state"] else {
            throw MLSClientError.invalidServerData("no state")
        }
        return state
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
        let id = ChatUUID.random(), transition = ChatUUID.random()
        let now = UInt64(Date().timeIntervalSince1970)
        let group = try Group.create(suite: suite, credential: device.credential, signingKey: device.signingKey,
                                     lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 2_592_000))
        let groupInfo = try group.makeGroupInfo()
        let next = ConversationCoordinates(conversationID: id, generation: 0, stateVersion: 0, groupID: group.groupID, epoch: 0,
                                           groupContextHash: HashAlgorithm.sha256.hash(group.groupContext.encoded()),
                                           confirmationTag: groupInfo.confirmationTag, lifecycle: .active)
        let provenance = ChatValue.object(["invitationTransitionId": .uuid(transition), "invitedByDid": .text(device.did.rawValue),
                                           "invitedByDeviceId": .uuid(device.deviceID)])
        var participants = [(device.did.rawValue, ChatValue.object(["userDid": .text(device.did.rawValue), "role": .text("admin"),
                                                                     "status": .text("active")]))]
        for did in invitees {
            participants.append((did, .object(["userDid": .text(did), "role": .text(direct ? "admin" : "member"),
                                               "status": .text("pending"), "invitationProvenance": provenance])))
        }
        participants.sort { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
        let authorProof = ChatValue.object([
            "authorDid": .text(device.did.rawValue), "authorDeviceId": .uuid(device.deviceID), "authorKeyId": .text(device.keyID),
            "signaturePublicKey": .bytes(device.publicKey), "authGenerationAtOrigin": .integer(authGeneration),
            "originTransitionId": .uuid(transition), "originSeq": .integer(1), "roleAtOrigin": .text("admin"),
            "deviceStatusAtOrigin": .text("active"),
        ])
        let plaintext = ChatMetadata.plaintext(title: title, version: 1, origin: transition, device: device)
        let snapshot = try ChatMetadata.seal(plaintext, version: 1, origin: transition, authorProof: authorProof, coordinates: next, group: group)
        let groupInfoBytes = MLSMessage(body: .groupInfo(groupInfo)).encoded()
        let result = try signed("createConversation", .creation, [
            "conversationId": .uuid(id), "conversationKind": .text(direct ? "direct" : "group"), "transitionId": .uuid(transition),
            "absence": .bool(true), "next": next.value,
            "manifest": .object(["participants": .array(participants.map(\.1)),
                                 "actorLeaf": .object(["userDid": .text(device.did.rawValue), "deviceId": .uuid(device.deviceID),
                                                       "leafOrigin": .text("genesis")])]),
            "genesisGroupInfo": .object(["framing": .text("mlsMessage"), "contentType": .text("groupInfo"), "bytes": .bytes(groupInfoBytes),
                                         "sha256": .bytes(HashAlgorithm.sha256.hash(groupInfoBytes))]),
            "metadataSnapshot": snapshot,
        ])["result"] ?? .object([:])
        if result.type == ChatSchema.typePrefix + "conversationCreatedResult" {
            conversations[id] = ChatMembership(group: group, kind: direct ? "direct" : "group", lastSeq: 1, joinedAt: 1,
                                               metadata: plaintext, metadataVersion: 1, metadataOrigin: transition,
                                               authorProof: authorProof, title: title)
            return (id, result)
        }
        return (result["conversationId"]?.uuid ?? id, result)
    }

    /// Accepts an invitation: the service reserves one of this device's KeyPackages for an add-kind
    /// recovery that a current member then fulfils. Returns the `#leafRecoveryView`.
    @discardableResult
    public func accept(_ conversation: ChatUUID) throws -> ChatValue {
        let state = try self.state(conversation)
        guard let prior = ConversationCoordinates(state["coordinates"]),
              let me = state["participants"]?.array?.first(where: { $0["userDid"]?.text == device.did.rawValue }),
              let provenance = me["invitationProvenance"] else { throw MLSClientError.notAMember(conversation.description) }
        var next = prior
        next.stateVersion += 1
        let output = try signed("acceptConversation", .participantAcceptance, [
            "transitionId": .uuid(.random()), "recoveryRequestId": .uuid(.random()), "prior": prior.value, "next": next.value,
            "invitationProvenance": provenance,
        ])
        return output["recovery"] ?? .object([:])
    }

    /// Asks for a leaf in a conversation this account takes part in (a second device of a member).
    @discardableResult
    public func requestLeaf(_ conversation: ChatUUID) throws -> ChatValue {
        try signed("requestLeafRecovery", .leafRecoveryRequest, [
            "recoveryRequestId": .uuid(.random()), "prior": try coordinates(conversation).value, "recoveryKind": .text("add"),
        ])["recovery"] ?? .object([:])
    }
}
