import ATProto
import Basics
import ChatProtocol
import Foundation
import MLS
import Primitives

extension ChatClient {
    // MARK: Commits

    /// Fulfils another device's open recovery request (a `#leafRecoveryView`): an Add of its reserved
    /// KeyPackage and, for a `replace`, the Remove of the leaf the device holds now, committed as
    /// every commit is (`submitCommit`), with one Welcome for the device. Returns the output.
    @discardableResult
    public func fulfil(_ recovery: ChatValue) throws -> ChatValue {
        guard let conversation = recovery["conversationId"]?.uuid, let requestID = recovery["recoveryRequestId"]?.uuid,
              let wrapper = recovery["reservation"]?["keyPackage"]?["bytes"]?.bytes,
              let ref = recovery["reservation"]?["keyPackageRef"]?.bytes,
              let did = recovery["requesterDid"]?.text, let requester = recovery["requesterDeviceId"]?.uuid,
              let kind = recovery["recoveryKind"]?.text.flatMap(RecoveryKind.init) else {
            throw MLSClientError.invalidServerData("incomplete recovery request")
        }
        guard case .keyPackage(let keyPackage) = try MLSMessage(decoding: wrapper).body else {
            throw MLSClientError.invalidServerData("the reserved KeyPackage is not one")
        }
        try sync(conversation)
        var proposals: [Proposal] = [.add(keyPackage)]
        var leafChanges: [ChatValue] = [.tagged("addLeafByRecovery", ["userDid": .text(did), "deviceId": .uuid(requester),
                                                                      "recoveryRequestId": .uuid(requestID), "keyPackageRef": .bytes(ref)])]
        if kind == .replace {
            // A replace removes the leaf the device holds now (its state is lost or broken) in the same commit.
            guard let old = try current(conversation).group.leafIndex(did: did, device: requester) else {
                throw MLSClientError.invalidServerData("the device asking to replace its leaf holds none here")
            }
            proposals.append(.remove(removed: old))
            leafChanges.append(Self.removeLeaf(did: did, device: requester))
        }
        return try submitCommit(conversation, kind: .leafRecoveryFulfillment, proposals: proposals) { output in
            guard let welcome = output.welcome?.encoded() else { throw MLSClientError.invalidServerData("no Welcome") }
            return [
                "recoveryRequestId": .uuid(requestID),
                "manifest": .object([
                    "participantChanges": .array([]), "leafChanges": .array(Self.contractOrder(leafChanges)),
                    "welcomeBundle": .object([
                        "welcomeId": .uuid(.random()), "framing": .text("mlsMessage"), "contentType": .text("welcome"),
                        "opaqueWelcome": .bytes(welcome), "sha256": .bytes(HashAlgorithm.sha256.hash(welcome)),
                        "deliveries": .array([.object(["recipientDid": .text(did), "recipientDeviceId": .uuid(requester),
                                                       "provenance": .object(["recoveryRequestId": .uuid(requestID), "keyPackageRef": .bytes(ref)])])]),
                    ]),
                    "leafRecoveryRequestId": .uuid(requestID),
                ]),
            ]
        }
    }

    /// A commit with no membership change (the committer's update path: new keys for the group).
    @discardableResult
    public func rotate(_ conversation: ChatUUID) throws -> ChatValue {
        try sync(conversation)
        return try submitCommit(conversation, kind: .commitTransition, proposals: []) { _ in
            ["manifest": .object(["participantChanges": .array([]), "leafChanges": .array([])])]
        }
    }

    /// Commits `proposals` (after the log has been read: call `sync` first) as a `kind` transition:
    /// the contract's commit AAD, `next` from the new epoch, the metadata re-encrypted for it (same
    /// version, origin and author proof), the commit, and the fields `manifest` makes from the
    /// commit's output, signed together. The device moves to the new epoch once the service has
    /// stored the transition; a refusal leaves it where it was.
    func submitCommit(_ conversation: ChatUUID, kind: SignedMutationKind, proposals: [Proposal],
                      manifest: (CommitOutput) throws -> [String: ChatValue]) throws -> ChatValue {
        var membership = try current(conversation)
        let prior = try coordinates(conversation)
        let transition = ChatUUID.random()
        let aad = MLSAuthenticatedData.commitAAD(transitionID: transition, prior: prior)
        let output = try membership.group.commit(proposals: proposals, includePending: false, includePath: true,
                                                 authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.commitDomain, aad: aad))
        let next = nextCoordinates(prior, group: output.group, tag: output.groupInfo.confirmationTag)
        let snapshot = try ChatMetadata.seal(membership.metadata, version: membership.metadataVersion, origin: membership.metadataOrigin,
                                             authorProof: membership.authorProof, avatarBinding: membership.avatarBinding,
                                             coordinates: next, group: output.group)
        var fields = try manifest(output)
        fields.merge(["transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "aad": aad,
                      "commit": Self.commitArtifact(output.commit.encoded()), "metadataSnapshot": snapshot]) { $1 }
        let result = try signed("submitTransition", kind, fields)
        membership.group = output.group
        membership.lastSeq = result["entry"]?["seq"]?.integer ?? membership.lastSeq
        conversations[conversation] = membership
        return result
    }

    /// A manifest's `removeLeaf` of one device.
    static func removeLeaf(did: String, device: ChatUUID) -> ChatValue {
        .tagged("removeLeaf", ["userDid": .text(did), "deviceId": .uuid(device)])
    }

    /// `leafChanges` in the one order the contract accepts (CHAT.md §1.3): by DID, then device id
    /// (bytes), a device's removeLeaf before its addLeafByRecovery.
    static func contractOrder(_ leafChanges: [ChatValue]) -> [ChatValue] {
        func key(_ change: ChatValue) -> ([UInt8], [UInt8], Int) {
            (Array((change["userDid"]?.text ?? "").utf8), change["deviceId"]?.uuid?.bytes ?? [],
             change.type == ChatSchema.typePrefix + "removeLeaf" ? 0 : 1)
        }
        return leafChanges.sorted { a, b in
            let (x, y) = (key(a), key(b))
            if x.0 != y.0 { return x.0.lexicographicallyPrecedes(y.0) }
            if x.1 != y.1 { return x.1.lexicographicallyPrecedes(y.1) }
            return x.2 < y.2
        }
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
