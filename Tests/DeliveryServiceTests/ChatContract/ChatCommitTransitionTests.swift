import ChatProtocol
import Foundation
import MLS
@testable import MLSClient
import Primitives
import TestSupport
import XCTest

/// submitTransition's commit-carrying shapes with Removes (issue 33): leave fulfilments, plain
/// commits removing leaves, replacements, and the metadata and policy shapes around them. Each
/// commit is built here with the client's MLS group so that its manifest can be made to lie.
final class ChatCommitTransitionTests: ChatContractTestCase {
    struct Room {
        let alice: ChatClient, bob1: ChatClient, bob2: ChatClient, carol: ChatClient
        let bobDID: String, carolDID: String
        let id: ChatUUID
    }

    /// alice (admin), bob with two devices and carol, every device holding a leaf.
    func room() throws -> Room {
        let (alice, _) = try enrolled()
        let (bob1, bob) = try enrolled()
        let (bob2, _) = try enrolled(bob)
        let (carol, carolIdentity) = try enrolled()
        let (id, _) = try alice.create(inviting: [bob.did.rawValue, carolIdentity.did.rawValue])
        for (device, accepts) in [(bob1, true), (carol, true), (bob2, false)] {
            if accepts { try device.accept(id) } else { try device.requestLeaf(id) }
            try alice.fulfil(try recovery(for: device, in: id, seenBy: alice))
            try join(device)
        }
        return Room(alice: alice, bob1: bob1, bob2: bob2, carol: carol, bobDID: bob.did.rawValue, carolDID: carolIdentity.did.rawValue, id: id)
    }

    func leafIndex(of device: ChatClient, in group: Group) throws -> UInt32 {
        let identity = Array("\(device.device.did.rawValue)#\(device.device.deviceID)".utf8)
        return try XCTUnwrap(group.members.first { $0.credential == .basic(identity: identity) }?.leafIndex)
    }

    func removeLeaf(_ device: ChatClient) -> ChatValue {
        .tagged("removeLeaf", ["userDid": .text(device.device.did.rawValue), "deviceId": .uuid(device.device.deviceID)])
    }

    /// `removeLeaf` changes in the contract's order (by DID, then device id).
    func removeLeaves(_ devices: [ChatClient]) -> ChatValue {
        .array(devices.sorted { a, b in
            let (x, y) = (Array(a.device.did.rawValue.utf8), Array(b.device.did.rawValue.utf8))
            return x == y ? a.device.deviceID.bytes.lexicographicallyPrecedes(b.device.deviceID.bytes) : x.lexicographicallyPrecedes(y)
        }.map(removeLeaf))
    }

    /// A conversation's item in the device's inventory.
    func inventoryItem(_ client: ChatClient, _ id: ChatUUID) throws -> ChatValue? {
        try client.inventory().conversations.first { ($0["conversationId"] ?? $0["state"]?["coordinates"]?["conversationId"])?.uuid == id }
    }

    /// `committer` commits `proposals` as a `kind` transition with `manifest` (and `extra` fields);
    /// on success its group moves on.
    @discardableResult
    func commit(_ committer: ChatClient, _ id: ChatUUID, kind: SignedMutationKind, proposals: [Proposal], manifest: [String: ChatValue],
                extra: [String: ChatValue] = [:]) throws -> ChatValue {
        try committer.sync(id)
        var membership = try XCTUnwrap(committer.conversations[id])
        let prior = try committer.coordinates(id)
        let transition = ChatUUID.random()
        let aad = MLSAuthenticatedData.commitAAD(transitionID: transition, prior: prior)
        let output = try membership.group.commit(proposals: proposals, includePending: false, includePath: true,
                                                 authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.commitDomain, aad: aad))
        let next = committer.nextCoordinates(prior, group: output.group, tag: output.groupInfo.confirmationTag)
        let snapshot = try ChatMetadata.seal(membership.metadata, version: membership.metadataVersion, origin: membership.metadataOrigin,
                                             authorProof: membership.authorProof, coordinates: next, group: output.group)
        var fields: [String: ChatValue] = [
            "transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "aad": aad,
            "manifest": .object(["participantChanges": .array([]), "leafChanges": .array([])].merging(manifest) { $1 }),
            "commit": ChatClient.commitArtifact(output.commit.encoded()), "metadataSnapshot": snapshot,
        ]
        fields.merge(extra) { $1 }
        let result = try committer.signed("submitTransition", kind, fields)
        membership.group = output.group
        membership.lastSeq = result["entry"]?["seq"]?.integer ?? membership.lastSeq
        committer.conversations[id] = membership
        return result
    }

    func leave(_ client: ChatClient, _ id: ChatUUID) throws -> ChatUUID {
        let leaveID = ChatUUID.random()
        try client.signed("requestLeave", .leaveRequest, ["leaveRequestId": .uuid(leaveID), "prior": try client.coordinates(id).value])
        return leaveID
    }

    func entries(_ client: ChatClient, _ id: ChatUUID, after: UInt64) throws -> [ChatValue] {
        try client.query("getEntries", [("conversationId", id.description), ("afterSeq", String(after)), ("limit", "100")])["entries"]?.array ?? []
    }

    func testALeaveIsFulfilledByAnotherAccountRemovingEveryLeafOfTheRequester() throws {
        let r = try room()
        let leaveID = try leave(r.bob1, r.id)
        let group = try XCTUnwrap(r.alice.conversations[r.id]).group
        let bob1 = try leafIndex(of: r.bob1, in: group), bob2 = try leafIndex(of: r.bob2, in: group)
        let removeBob = ChatValue.tagged("removeParticipant", ["userDid": .text(r.bobDID)])
        let fulfil = ["leaveRequestId": ChatValue.uuid(leaveID)]
        let entriesBefore = try count("chat_entries")

        XCTAssertEqual(refusal(400) {
            try self.commit(r.alice, r.id, kind: .leaveCommitFulfillment, proposals: [.remove(removed: bob1)],
                            manifest: ["participantChanges": .array([removeBob]), "leafChanges": .array([self.removeLeaf(r.bob1)])], extra: fulfil)
        }, "InvalidLeaveManifest", "one of bob's two leaves")
        XCTAssertEqual(refusal(400) {
            try self.commit(r.alice, r.id, kind: .leaveCommitFulfillment, proposals: [.remove(removed: bob1), .remove(removed: bob2)],
                            manifest: ["leafChanges": self.removeLeaves([r.bob1, r.bob2])], extra: fulfil)
        }, "InvalidLeaveManifest", "without removing bob as a participant")
        XCTAssertEqual(refusal(400) {
            try self.commit(r.alice, r.id, kind: .leaveCommitFulfillment, proposals: [.remove(removed: bob1), .remove(removed: bob2)],
                            manifest: ["participantChanges": .array([removeBob]), "leafChanges": .array([self.removeLeaf(r.bob1)])], extra: fulfil)
        }, "InvalidLeaveManifest", "a manifest naming fewer leaves than the commit removes")
        XCTAssertEqual(refusal(400) {
            try self.commit(r.bob2, r.id, kind: .leaveCommitFulfillment, proposals: [.remove(removed: bob1)],
                            manifest: ["participantChanges": .array([removeBob]), "leafChanges": .array([self.removeLeaf(r.bob1)])], extra: fulfil)
        }, "CommitterSelfRemovalForbidden", "the requester's own account does not fulfil")
        XCTAssertEqual(try count("chat_entries"), entriesBefore)

        let output = try commit(r.alice, r.id, kind: .leaveCommitFulfillment, proposals: [.remove(removed: bob1), .remove(removed: bob2)],
                                manifest: ["participantChanges": .array([removeBob]),
                                           "leafChanges": removeLeaves([r.bob2, r.bob1])], extra: fulfil)
        let removalSeq = try XCTUnwrap(output["entry"]?["seq"]?.integer)
        XCTAssertEqual(output["entry"]?.type, ChatSchema.typePrefix + "leaveCommitFulfillmentEntry")
        XCTAssertNil(try r.alice.state(r.id)["participants"]?.array?.first { $0["userDid"]?.text == r.bobDID })
        XCTAssertEqual(refusal(400) {
            try self.commit(r.alice, r.id, kind: .leaveCommitFulfillment, proposals: [], manifest: [:], extra: fulfil)
        }, "LeaveRequestNotFound", "fulfilled once")

        // What alice and carol say after it, bob's devices never read; their tombstone says where it ended.
        try r.alice.send(r.id, text: "bob is gone")
        XCTAssertEqual(try entries(r.bob1, r.id, after: removalSeq - 1).map { $0["seq"]?.integer }, [removalSeq])
        try r.carol.sync(r.id)
        XCTAssertEqual(try r.carol.read(r.id).map(\.text), ["bob is gone"])
        let tombstone = try XCTUnwrap(try inventoryItem(r.bob2, r.id))
        XCTAssertEqual(tombstone.type, ChatSchema.typePrefix + "conversationRemovalTombstone")
        XCTAssertEqual(tombstone["terminalSeq"]?.integer, removalSeq)
    }

    func testAPlainCommitRemovesExactlyTheLeavesItsManifestNames() throws {
        let r = try room()
        let group = try XCTUnwrap(r.alice.conversations[r.id]).group
        let carol = try leafIndex(of: r.carol, in: group)
        XCTAssertEqual(refusal(400) {
            try self.commit(r.alice, r.id, kind: .commitTransition, proposals: [.remove(removed: carol)],
                            manifest: ["leafChanges": .array([self.removeLeaf(r.bob1)])])
        }, "InvalidLeaveManifest")
        XCTAssertEqual(refusal(400) {
            try self.commit(r.alice, r.id, kind: .commitTransition, proposals: [.remove(removed: carol)],
                            manifest: ["participantChanges": .array([.tagged("removeParticipant", ["userDid": .text(r.carolDID)])]),
                                       "leafChanges": .array([self.removeLeaf(r.carol)])])
        }, "InvalidRequest", "a commit changes no participant")
        try commit(r.alice, r.id, kind: .commitTransition, proposals: [.remove(removed: carol)],
                   manifest: ["leafChanges": .array([removeLeaf(r.carol)])])
        // carol is still a participant, without a leaf: her device sees its removal, asks again and is given a new leaf.
        let carolState = try XCTUnwrap(try r.alice.state(r.id)["participants"]?.array?.first { $0["userDid"]?.text == r.carolDID })
        XCTAssertEqual(carolState["leafCount"]?.integer, 0)
        XCTAssertEqual(try inventoryItem(r.carol, r.id)?.type,
                       ChatSchema.typePrefix + "conversationRemovalTombstone")
        r.carol.conversations[r.id] = nil
        try r.carol.requestLeaf(r.id)
        try r.bob1.fulfil(try recovery(for: r.carol, in: r.id, seenBy: r.bob1))
        try join(r.carol)
        XCTAssertEqual(try inventoryItem(r.carol, r.id)?.type,
                       ChatSchema.typePrefix + "conversationInventoryState")
        try r.alice.send(r.id, text: "welcome back")
        try r.carol.sync(r.id)
        XCTAssertEqual(try r.carol.read(r.id).map(\.text), ["welcome back"])
    }

    func testAReplacementSwapsTheDevicesLeafInOneCommit() throws {
        let r = try room()
        XCTAssertEqual(refusal(400) { try r.bob2.requestLeaf(r.id) }, "InvalidRequest", "an add for a device holding a leaf")
        let recoveryID = ChatUUID.random()
        try r.bob2.signed("requestLeafRecovery", .leafRecoveryRequest, [
            "recoveryRequestId": .uuid(recoveryID), "prior": try r.bob2.coordinates(r.id).value, "recoveryKind": .text("replace"),
        ])
        let request = try recovery(for: r.bob2, in: r.id, seenBy: r.alice)
        XCTAssertEqual(request["recoveryKind"]?.text, "replace")
        let reservation = try XCTUnwrap(request["reservation"])
        let wrapper = try XCTUnwrap(reservation["keyPackage"]?["bytes"]?.bytes)
        guard case .keyPackage(let package) = try MLSMessage(decoding: wrapper).body else { return XCTFail("no KeyPackage") }
        let ref = try XCTUnwrap(reservation["keyPackageRef"]?.bytes)
        let group = try XCTUnwrap(r.alice.conversations[r.id]).group
        let old = try leafIndex(of: r.bob2, in: group), carol = try leafIndex(of: r.carol, in: group)
        let add = ChatValue.tagged("addLeafByRecovery", ["userDid": .text(r.bobDID), "deviceId": .uuid(r.bob2.device.deviceID),
                                                         "recoveryRequestId": .uuid(recoveryID), "keyPackageRef": .bytes(ref)])
        /// The fulfilment of the replacement whose commit removes `removed` and adds the reserved package.
        func replace(removing removed: [UInt32], _ changes: [ChatValue]) throws -> ChatValue {
            var membership = try XCTUnwrap(r.alice.conversations[r.id])
            let prior = try r.alice.coordinates(r.id)
            let transition = ChatUUID.random()
            let aad = MLSAuthenticatedData.commitAAD(transitionID: transition, prior: prior)
            let output = try membership.group.commit(proposals: removed.map { .remove(removed: $0) } + [.add(package)], includePending: false,
                                                     includePath: true,
                                                     authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.commitDomain, aad: aad))
            let next = r.alice.nextCoordinates(prior, group: output.group, tag: output.groupInfo.confirmationTag)
            let welcome = try XCTUnwrap(output.welcome?.encoded())
            let delivery = ChatValue.object(["recipientDid": .text(r.bobDID), "recipientDeviceId": .uuid(r.bob2.device.deviceID),
                                             "provenance": .object(["recoveryRequestId": .uuid(recoveryID), "keyPackageRef": .bytes(ref)])])
            let result = try r.alice.signed("submitTransition", .leafRecoveryFulfillment, [
                "recoveryRequestId": .uuid(recoveryID), "transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "aad": aad,
                "manifest": .object([
                    "participantChanges": .array([]), "leafChanges": .array(changes),
                    "welcomeBundle": .object(["welcomeId": .uuid(.random()), "framing": .text("mlsMessage"), "contentType": .text("welcome"),
                                              "opaqueWelcome": .bytes(welcome), "sha256": .bytes(HashAlgorithm.sha256.hash(welcome)),
                                              "deliveries": .array([delivery])]),
                    "leafRecoveryRequestId": .uuid(recoveryID),
                ]),
                "commit": ChatClient.commitArtifact(output.commit.encoded()),
                "metadataSnapshot": try ChatMetadata.seal(membership.metadata, version: membership.metadataVersion,
                                                          origin: membership.metadataOrigin, authorProof: membership.authorProof,
                                                          coordinates: next, group: output.group),
            ])
            membership.group = output.group
            membership.lastSeq = result["entry"]?["seq"]?.integer ?? membership.lastSeq
            r.alice.conversations[r.id] = membership
            return result
        }
        // Removing another leaf with it is more than a replacement.
        var both = removeLeaves([r.bob2, r.carol]).array ?? []
        both.insert(add, at: both.firstIndex { $0["userDid"]?.text == r.bobDID }! + 1)
        XCTAssertEqual(refusal(400) { try replace(removing: [old, carol], both) }, "InvalidCommit")
        // The old leaf's removal comes before the new leaf's addition (the contract's order).
        let result = try replace(removing: [old], [removeLeaf(r.bob2), add])
        XCTAssertEqual(result["welcomes"]?.array?.count, 1)

        // bob's phone starts over from the Welcome and reads what follows; the others follow the commit.
        r.bob2.conversations[r.id] = nil
        try join(r.bob2)
        try r.carol.send(r.id, text: "after the swap")
        try r.bob2.sync(r.id)
        XCTAssertEqual(try r.bob2.read(r.id).map(\.text), ["after the swap"])
        XCTAssertEqual(try inventoryItem(r.bob2, r.id)?.type,
                       ChatSchema.typePrefix + "conversationInventoryState")
    }

    func testMetadataTransitionsNeedAnAdminTheNextVersionAndANewNonce() throws {
        let r = try room()
        let nonce = SecureRandom.bytes(12)
        func rename(_ client: ChatClient, nonce: [UInt8], version: UInt64? = nil) throws -> ChatValue {
            let state = try client.state(r.id)
            let prior = try XCTUnwrap(ConversationCoordinates(state["coordinates"]))
            var next = prior
            next.stateVersion += 1
            let transition = ChatUUID.random()
            let current = try XCTUnwrap(state["metadataSnapshot"]?["metadataVersion"]?.integer)
            // The service cannot read the ciphertext: these bytes stand for an encrypted title.
            let ciphertext = SecureRandom.bytes(48)
            let proof = ChatValue.object([
                "authorDid": .text(client.device.did.rawValue), "authorDeviceId": .uuid(client.device.deviceID),
                "authorKeyId": .text(client.device.keyID), "signaturePublicKey": .bytes(client.device.publicKey),
                "authGenerationAtOrigin": .integer(client.authGeneration), "originTransitionId": .uuid(transition),
                "originSeq": .integer((state["snapshotSeq"]?.integer ?? 0) + 1), "roleAtOrigin": .text("admin"),
                "deviceStatusAtOrigin": .text("active"),
            ])
            let snapshot = ChatValue.object([
                "coordinate": next.metadataCryptoContext, "originTransitionId": .uuid(transition),
                "metadataVersion": .integer(version ?? current + 1), "nonce": .bytes(nonce), "ciphertext": .bytes(ciphertext),
                "ciphertextSha256": .bytes(HashAlgorithm.sha256.hash(ciphertext)), "ciphertextSize": .integer(48), "authorProof": proof,
            ])
            return try client.signed("submitTransition", .metadataTransition, [
                "transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "metadataSnapshot": snapshot,
            ])
        }
        XCTAssertEqual(refusal(400) { try rename(r.carol, nonce: nonce) }, "AdminRequired")
        XCTAssertEqual(refusal(400) { try rename(r.alice, nonce: nonce, version: 1) }, "InvalidMetadataSnapshot")
        let renamed = try rename(r.alice, nonce: nonce)
        XCTAssertEqual(renamed["entry"]?.type, ChatSchema.typePrefix + "metadataEntry")
        XCTAssertEqual(try r.alice.state(r.id)["metadataSnapshot"]?["nonce"]?.bytes, nonce)
        XCTAssertEqual(refusal(400) { try rename(r.alice, nonce: nonce) }, "MetadataNonceReuse", "the same epoch, the same nonce")
        XCTAssertEqual(try rename(r.alice, nonce: SecureRandom.bytes(12))["entry"]?.type, ChatSchema.typePrefix + "metadataEntry")
    }

    func testAResetStartsANewGenerationFromTheAdminsLeafAndEveryoneElseComesBack() throws {
        let r = try room()
        try r.alice.send(r.id, text: "before the reset")
        let requestID = ChatUUID.random()
        try r.bob1.signed("requestReset", .resetRequest, ["resetRequestId": .uuid(requestID), "prior": try r.bob1.coordinates(r.id).value,
                                                          "reason": .text("epochDivergence")])

        /// `client` activates the reset with a fresh one-leaf group; on success it holds that group.
        func activate(_ client: ChatClient, request: ChatUUID = requestID) throws -> ChatValue {
            let state = try client.state(r.id)
            let prior = try XCTUnwrap(ConversationCoordinates(state["coordinates"]))
            var retired = prior
            retired.stateVersion += 1
            retired.lifecycle = .superseded
            let now = UInt64(Date().timeIntervalSince1970)
            let group = try Group.create(suite: client.suite, credential: client.device.credential, signingKey: client.device.signingKey,
                                         lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 2_592_000))
            let groupInfo = try group.makeGroupInfo()
            let successor = ConversationCoordinates(conversationID: r.id, generation: prior.generation + 1, stateVersion: 0,
                                                    groupID: group.groupID, epoch: 0,
                                                    groupContextHash: HashAlgorithm.sha256.hash(group.groupContext.encoded()),
                                                    confirmationTag: groupInfo.confirmationTag, lifecycle: .active)
            let transition = ChatUUID.random()
            let seq = (state["snapshotSeq"]?.integer ?? 0) + 1
            let proof = ChatValue.object([
                "authorDid": .text(client.device.did.rawValue), "authorDeviceId": .uuid(client.device.deviceID),
                "authorKeyId": .text(client.device.keyID), "signaturePublicKey": .bytes(client.device.publicKey),
                "authGenerationAtOrigin": .integer(client.authGeneration), "originTransitionId": .uuid(transition),
                "originSeq": .integer(seq), "roleAtOrigin": .text("admin"), "deviceStatusAtOrigin": .text("active"),
            ])
            let version = (state["metadataSnapshot"]?["metadataVersion"]?.integer ?? 0) + 1
            let plaintext = ChatMetadata.plaintext(title: "after the reset", version: version, origin: transition, device: client.device)
            let snapshot = try ChatMetadata.seal(plaintext, version: version, origin: transition, authorProof: proof,
                                                 coordinates: successor, group: group)
            let bytes = MLSMessage(body: .groupInfo(groupInfo)).encoded()
            let participants = (state["participants"]?.array ?? []).map { item -> ChatValue in
                guard case .object(var members) = item else { return item }
                members["leafCount"] = nil
                return .object(members)
            }
            let output = try client.signed("activateReset", .resetActivation, [
                "resetRequestId": .uuid(request), "transitionId": .uuid(transition), "conversationKind": .text("group"),
                "prior": prior.value, "retired": retired.value, "successor": successor.value,
                "manifest": .object(["participants": .array(participants),
                                     "actorLeaf": .object(["userDid": .text(client.device.did.rawValue), "deviceId": .uuid(client.device.deviceID),
                                                           "leafOrigin": .text("genesis")])]),
                "genesisGroupInfo": .object(["framing": .text("mlsMessage"), "contentType": .text("groupInfo"), "bytes": .bytes(bytes),
                                             "sha256": .bytes(HashAlgorithm.sha256.hash(bytes))]),
                "metadataSnapshot": snapshot,
            ])
            client.conversations[r.id] = ChatClient.ChatMembership(
                group: group, kind: "group", lastSeq: seq, joinedAt: seq, metadata: plaintext, metadataVersion: version,
                metadataOrigin: transition, authorProof: proof, title: "after the reset")
            return output
        }
        XCTAssertEqual(refusal(400) { try activate(r.carol) }, "AdminRequired")
        XCTAssertEqual(refusal(400) { try activate(r.alice, request: .random()) }, "ResetRequestNotFound")
        let output = try activate(r.alice)
        let successor = try XCTUnwrap(ConversationCoordinates(output["successorCoordinates"]))
        XCTAssertEqual(successor.generation, 1)
        XCTAssertEqual(try r.alice.state(r.id)["leaves"]?.array?.count, 1)
        XCTAssertEqual(refusal(400) { try activate(r.alice) }, "ResetRequestNotFound", "consumed once")

        // Every other device asks for a leaf in the new group and is given one; none reads the old generation's messages again.
        for device in [r.bob1, r.bob2, r.carol] {
            device.conversations[r.id] = nil
            try device.requestLeaf(r.id)
            try r.alice.fulfil(try recovery(for: device, in: r.id, seenBy: r.alice))
            try join(device)
        }
        try r.bob2.send(r.id, text: "after the reset")
        for device in [r.alice, r.bob1, r.carol] {
            try device.sync(r.id)
            XCTAssertEqual(try device.read(r.id).map(\.text), ["after the reset"])
        }
        XCTAssertEqual(try r.alice.state(r.id)["leaves"]?.array?.count, 4)
    }
}
