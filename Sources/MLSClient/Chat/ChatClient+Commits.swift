import ATProto
import Basics
import ChatProtocol
import Foundation
import MLS
import Primitives

extension ChatClient {
    // MARK: Commits

    /// Fulfils another device's open recovery request (a `#leafRecoveryView`): an Add of its reserved
    /// KeyPackage, committed with the contract's AAD, and one Welcome for it. Returns the output.
    @discardableResult
    public func fulfil(_ recovery: ChatValue) throws -> ChatValue {
        guard let conversation = recovery["conversationId"]?.uuid, let requestID = recovery["recoveryRequestId"]?.uuid,
              let wrapper = recovery["reservation"]?["keyPackage"]?["bytes"]?.bytes,
              let ref = recovery["reservation"]?["keyPackageRef"]?.bytes,
              let did = recovery["requesterDid"]?.text, let requester = recovery["requesterDeviceId"]?.uuid else {
            throw MLSClientError.invalidServerData("incomplete recovery request")
        }
        try sync(conversation)
        guard var membership = conversations[conversation] else { throw MLSClientError.notAMember(conversation.description) }
        let prior = try coordinates(conversation)
        guard case .keyPackage(let keyPackage) = try MLSMessage(decoding: wrapper).body else {
            throw MLSClientError.invalidServerData("the reserved KeyPackage is not one")
        }
        let transition = ChatUUID.random()
        let aad = MLSAuthenticatedData.commitAAD(transitionID: transition, prior: prior)
        let output = try membership.group.commit(proposals: [.add(keyPackage)], includePending: false, includePath: true,
                                                 authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.commitDomain, aad: aad))
        let next = nextCoordinates(prior, group: output.group, tag: output.groupInfo.confirmationTag)
        guard let welcome = output.welcome?.encoded() else { throw MLSClientError.invalidServerData("no Welcome") }
        let commit = output.commit.encoded()
        let snapshot = try ChatMetadata.seal(membership.metadata, version: membership.metadataVersion, origin: membership.metadataOrigin,
                                             authorProof: membership.authorProof, coordinates: next, group: output.group)
        let result = try signed("submitTransition", .leafRecoveryFulfillment, [
            "recoveryRequestId": .uuid(requestID), "transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "aad": aad,
            "manifest": .object([
                "participantChanges": .array([]),
                "leafChanges": .array([.tagged("addLeafByRecovery", ["userDid": .text(did), "deviceId": .uuid(requester),
                                                                     "recoveryRequestId": .uuid(requestID), "keyPackageRef": .bytes(ref)])]),
                "welcomeBundle": .object([
                    "welcomeId": .uuid(.random()), "framing": .text("mlsMessage"), "contentType": .text("welcome"),
                    "opaqueWelcome": .bytes(welcome), "sha256": .bytes(HashAlgorithm.sha256.hash(welcome)),
                    "deliveries": .array([.object(["recipientDid": .text(did), "recipientDeviceId": .uuid(requester),
                                                   "provenance": .object(["recoveryRequestId": .uuid(requestID), "keyPackageRef": .bytes(ref)])])]),
                ]),
                "leafRecoveryRequestId": .uuid(requestID),
            ]),
            "commit": Self.commitArtifact(commit), "metadataSnapshot": snapshot,
        ])
        membership.group = output.group
        membership.lastSeq = result["entry"]?["seq"]?.integer ?? membership.lastSeq
        conversations[conversation] = membership
        return result
    }

    /// A commit with no membership change (the committer's update path: new keys for the group).
    @discardableResult
    public func rotate(_ conversation: ChatUUID) throws -> ChatValue {
        try sync(conversation)
        guard var membership = conversations[conversation] else { throw MLSClientError.notAMember(conversation.description) }
        let prior = try coordinates(conversation)
        let transition = ChatUUID.random()
        let aad = MLSAuthenticatedData.commitAAD(transitionID: transition, prior: prior)
        let output = try membership.group.commit(includePending: false, includePath: true,
                                                 authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.commitDomain, aad: aad))
        let next = nextCoordinates(prior, group: output.group, tag: output.groupInfo.confirmationTag)
        let snapshot = try ChatMetadata.seal(membership.metadata, version: membership.metadataVersion, origin: membership.metadataOrigin,
                                             authorProof: membership.authorProof, coordinates: next, group: output.group)
        let result = try signed("submitTransition", .commitTransition, [
            "transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "aad": aad,
            "manifest": .object(["participantChanges": .array([]), "leafChanges": .array([])]),
            "commit": Self.commitArtifact(output.commit.encoded()), "metadataSnapshot": snapshot,
        ])
        membership.group = output.group
        membership.lastSeq = result["entry"]?["seq"]?.integer ?? membership.lastSeq
        conversations[conversation] = membership
        return result
    }

    public static func commitArtifact(_ bytes: [UInt8]) -> ChatValue {
        .object(["framing": .text("mlsMessage"), "contentType": .text("publicMessageCommit"), "bytes": .bytes(bytes),
                 "sha256": .bytes(HashAlgorithm.sha256.hash(bytes))])
    }

    public func nextCoordinates(_ prior: ConversationCoordinates, group: Group, tag: [UInt8]) -> ConversationCoordinates {
        var next = prior
        next.stateVersion += 1
        next.epoch = group.epoch
        next.groupContextHash = HashAlgorithm.sha256.hash(group.groupContext.encoded())
        next.confirmationTag = tag
        return next
    }
}
