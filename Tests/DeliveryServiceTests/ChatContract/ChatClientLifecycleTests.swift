import ChatProtocol
import Foundation
import MLSClient
import TestSupport
import XCTest

/// The client's side of a conversation's life after it is made, against the real service: leaving
/// (asked and fulfilled, cancelled, at once without leaves), devices removed and leaves replaced,
/// roles and invitations, the title, a reset and every device's recovery, and closing. Each flow is
/// read back from the service and by the other devices, whose messages decrypt for their readers.
final class ChatClientLifecycleTests: ChatContractTestCase {
    /// A group made by `creator` in which every device of `members` (by account: the first device
    /// of an invited account accepts, the others, and the creator's own, ask for a leaf) holds a
    /// leaf, added by the creator.
    func group(_ creator: ChatClient, _ members: [[ChatClient]], title: String = "lifecycle") throws -> ChatUUID {
        let mine = creator.device.did.rawValue
        let invitees = members.compactMap { $0.first?.device.did.rawValue }.filter { $0 != mine }
        let (conversation, _) = try creator.create(inviting: invitees, title: title)
        for devices in members {
            for (index, device) in devices.enumerated() {
                if index == 0, device.device.did.rawValue != mine { try device.accept(conversation) } else { try device.requestLeaf(conversation) }
                try creator.fulfil(try recovery(for: device, in: conversation, seenBy: creator))
                try join(device)
            }
        }
        return conversation
    }

    func participants(_ client: ChatClient, _ conversation: ChatUUID) throws -> [String: ChatValue] {
        var byDID: [String: ChatValue] = [:]
        for participant in try client.state(conversation)["participants"]?.array ?? [] {
            byDID[participant["userDid"]?.text ?? ""] = participant
        }
        return byDID
    }

    func leafDevices(_ client: ChatClient, _ conversation: ChatUUID) throws -> Set<ChatUUID> {
        Set((try client.state(conversation)["leaves"]?.array ?? []).compactMap { $0["deviceId"]?.uuid })
    }

    /// The local refusal of a device whose interval ended.
    func assertEnded(_ body: () throws -> Any, _ ending: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard case MLSClientError.notAMember(let what) = error else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertTrue(what.contains(ending), what, file: file, line: line)
        }
    }

    // MARK: Leaving

    func testALeaveIsAskedCancelledAskedAgainAndFulfilled() throws {
        let (a1, alice) = try enrolled()
        let (bob1, _) = try enrolled()
        let (carol1, carol) = try enrolled()
        let (carol2, _) = try enrolled(carol)
        let conversation = try group(a1, [[bob1], [carol1, carol2]])

        // carol asks; a second request of her account (from her other device) is refused.
        let asked = try carol1.requestLeave(conversation)
        XCTAssertEqual(asked.type, ChatSchema.typePrefix + "durableLeaveRequestResult")
        XCTAssertEqual(asked["leaveRequest"]?["status"]?.text, "pending")
        XCTAssertEqual(refusal(400) { try carol2.requestLeave(conversation) }, "LeaveAlreadyPending")
        XCTAssertEqual(try a1.pendingRequests(conversation).leaves.map { $0["leaveRequestId"]?.uuid },
                       [asked["leaveRequest"]?["leaveRequestId"]?.uuid])

        // Her other device withdraws it; then she asks again.
        let cancelled = try carol2.cancelLeave(conversation)
        XCTAssertEqual(cancelled["leaveRequest"]?["status"]?.text, "cancelled")
        XCTAssertEqual(try a1.pendingRequests(conversation).leaves.count, 0)
        try carol1.requestLeave(conversation)
        let pending = try XCTUnwrap(try a1.pendingRequests(conversation).leaves.first)

        // alice's device fulfils it: both of carol's leaves go in one commit, and carol with them.
        try a1.send(conversation, text: "before carol leaves")
        let fulfilled = try a1.fulfilLeave(pending)
        let seq = try XCTUnwrap(fulfilled["entry"]?["seq"]?.integer)
        XCTAssertEqual(fulfilled["entry"]?.type, ChatSchema.typePrefix + "leaveCommitFulfillmentEntry")
        XCTAssertNil(try participants(a1, conversation)[carol.did.rawValue])
        XCTAssertEqual(try leafDevices(a1, conversation), [a1.device.deviceID, bob1.device.deviceID])
        XCTAssertEqual(try a1.pendingRequests(conversation).leaves.count, 0)

        // carol's devices read up to their removal, and no further; what they read is kept.
        XCTAssertEqual(try carol1.read(conversation).map(\.text), ["before carol leaves"])
        XCTAssertEqual(carol1.conversations[conversation]?.ended, .removed(seq: seq))
        try a1.send(conversation, text: "after carol left")
        XCTAssertEqual(try carol2.read(conversation).map(\.text), ["before carol leaves"])
        XCTAssertEqual(carol2.conversations[conversation]?.ended, .removed(seq: seq))
        assertEnded({ try carol1.send(conversation, text: "still here?") }, "removed at #\(seq)")
        // What came after her removal is not served to her devices.
        let after = try carol1.query("getEntries", [("conversationId", conversation.description), ("afterSeq", String(seq)), ("limit", "10")])
        XCTAssertEqual(after["entries"]?.array?.count, 0)
        XCTAssertEqual(after["hasMore"]?.bool, false)
        // Her inventory keeps a tombstone of the membership.
        let item = try XCTUnwrap(try carol1.inventory().conversations.first { $0["conversationId"]?.uuid == conversation })
        XCTAssertEqual(item.type, ChatSchema.typePrefix + "conversationRemovalTombstone")
        XCTAssertEqual(item["terminalSeq"]?.integer, seq)

        // The ending survives a restart of the device's state.
        let restored = try restarted(carol1)
        XCTAssertEqual(restored.conversations[conversation]?.ended, .removed(seq: seq))

        // bob follows the commit and reads on; the title is still readable in the new epoch.
        XCTAssertEqual(try bob1.read(conversation).map(\.text), ["before carol leaves", "after carol left"])
        try bob1.send(conversation, text: "just us")
        XCTAssertEqual(try a1.read(conversation).map(\.text), ["just us"])
        XCTAssertEqual(bob1.conversations[conversation]?.title, "lifecycle")
        _ = alice
    }

    func testWithoutLeavesAParticipantLeavesAtOnce() throws {
        let (a1, _) = try enrolled()
        let (bob1, bob) = try enrolled()
        let (carol1, carol) = try enrolled()
        let (conversation, _) = try a1.create(inviting: [bob.did.rawValue, carol.did.rawValue], title: "zero")

        // bob never accepted: he leaves at once, the state version one higher.
        let before = try a1.coordinates(conversation)
        let left = try bob1.requestLeave(conversation)
        XCTAssertEqual(left.type, ChatSchema.typePrefix + "zeroLeafLeaveResult")
        let after = try a1.coordinates(conversation)
        XCTAssertEqual(after.stateVersion, before.stateVersion + 1)
        XCTAssertEqual(after.epoch, before.epoch)
        XCTAssertEqual(ConversationCoordinates(left["coordinates"]), after)
        XCTAssertEqual(Set(try participants(a1, conversation).keys), [a1.device.did.rawValue, carol.did.rawValue])
        // The zero-leaf entry is signed by a device without a leaf: alice's device reads past it.
        try carol1.accept(conversation)
        try a1.fulfil(try recovery(for: carol1, in: conversation, seenBy: a1))
        try join(carol1)
        try carol1.send(conversation, text: "carol here")
        XCTAssertEqual(try a1.read(conversation).map(\.text), ["carol here"])
        // alice, the one active admin while carol is active, may not leave.
        XCTAssertEqual(refusal(400) { try a1.requestLeave(conversation) }, "LastAdminRequired")

        // A direct conversation is closed, not left.
        let (direct, _) = try a1.create(inviting: [bob.did.rawValue], direct: true)
        XCTAssertEqual(refusal(400) { try bob1.requestLeave(direct) }, "DirectParticipantMutationForbidden")
    }

    // MARK: Devices

    func testADeviceIsRemovedAndALeafReplaced() throws {
        let (a1, alice) = try enrolled()
        let (a2, _) = try enrolled(alice)
        let (bob1, bob) = try enrolled()
        let (bob2, _) = try enrolled(bob)
        let conversation = try group(a1, [[a2], [bob1, bob2]])

        // alice removes bob's second device: bob stays a participant, with one leaf.
        let removal = try a1.removeDevices([bob2.device.deviceID], from: conversation)
        let seq = try XCTUnwrap(removal["entry"]?["seq"]?.integer)
        XCTAssertEqual(try leafDevices(a1, conversation), [a1.device.deviceID, a2.device.deviceID, bob1.device.deviceID])
        XCTAssertEqual(try participants(a1, conversation)[bob.did.rawValue]?["leafCount"]?.integer, 1)
        XCTAssertEqual(try bob2.read(conversation), [])
        XCTAssertEqual(bob2.conversations[conversation]?.ended, .removed(seq: seq))
        assertEnded({ try bob2.send(conversation, text: "hello?") }, "removed")
        try bob1.send(conversation, text: "one device now")
        XCTAssertEqual(try a2.read(conversation).map(\.text), ["one device now"])

        // alice's phone lost its state: it asks for its leaf to be replaced; bob's device commits the
        // Remove and the Add together; the phone joins from the Welcome.
        let asked = try a2.requestLeaf(conversation, kind: .replace)
        XCTAssertEqual(asked["recoveryKind"]?.text, "replace")
        let replaced = try bob1.fulfil(try recovery(for: a2, in: conversation, seenBy: bob1))
        XCTAssertEqual(replaced["welcomes"]?.array?.count, 1)
        XCTAssertEqual(try join(a2), conversation)
        XCTAssertNil(a2.conversations[conversation]?.ended)
        XCTAssertEqual(try leafDevices(a1, conversation).count, 3)
        try bob1.send(conversation, text: "welcome back, phone")
        XCTAssertEqual(try a2.read(conversation).map(\.text), ["welcome back, phone"])
        try a2.send(conversation, text: "the phone again")
        XCTAssertEqual(try a1.read(conversation).map(\.text), ["one device now", "welcome back, phone", "the phone again"])
        XCTAssertEqual(try bob1.read(conversation).map(\.text), ["the phone again"])
    }

    // MARK: Roles, invitations, title

    func testAdminsChangeRolesInvitationsAndTheTitle() throws {
        let (a1, alice) = try enrolled()
        let (bob1, bob) = try enrolled()
        let (carol1, carol) = try enrolled()
        let conversation = try group(a1, [[bob1], [carol1]], title: "trip")

        // Only an admin changes roles or the title.
        XCTAssertEqual(refusal(400) { try carol1.policy(conversation, roles: [carol.did.rawValue: .admin]) }, "AdminRequired")
        XCTAssertEqual(refusal(400) { try bob1.rename(conversation, title: "bob's trip") }, "AdminRequired")

        // alice promotes bob; the epoch does not move.
        let epoch = try a1.coordinates(conversation).epoch
        try a1.policy(conversation, roles: [bob.did.rawValue: .admin])
        XCTAssertEqual(try participants(carol1, conversation)[bob.did.rawValue]?["role"]?.text, "admin")
        XCTAssertEqual(try a1.coordinates(conversation).epoch, epoch)

        // bob renames the group; the others read the new title from the entry.
        try bob1.rename(conversation, title: "summer trip")
        XCTAssertEqual(bob1.conversations[conversation]?.title, "summer trip")
        _ = try carol1.read(conversation)
        XCTAssertEqual(carol1.conversations[conversation]?.title, "summer trip")
        _ = try a1.read(conversation)
        XCTAssertEqual(a1.conversations[conversation]?.title, "summer trip")

        // A commit after it re-encrypts the new version; a device added later reads it too.
        try carol1.rotate(conversation)
        let (dave1, dave) = try enrolled()
        try bob1.policy(conversation, invite: [dave.did.rawValue])
        XCTAssertEqual(try participants(a1, conversation)[dave.did.rawValue]?["status"]?.text, "pending")
        try dave1.accept(conversation)
        try carol1.fulfil(try recovery(for: dave1, in: conversation, seenBy: carol1))
        try join(dave1)
        XCTAssertEqual(dave1.conversations[conversation]?.title, "summer trip")
        try dave1.send(conversation, text: "thanks for having me")
        XCTAssertEqual(try bob1.read(conversation).map(\.text), ["thanks for having me"])
        XCTAssertEqual(bob1.conversations[conversation]?.title, "summer trip")

        // bob promotes dave; an invitation not accepted is withdrawn; a participant holding leaves
        // is not removed by policy; alice steps down, and the last admin cannot.
        let (_, eve) = try enrolled()
        try bob1.policy(conversation, invite: [eve.did.rawValue], roles: [dave.did.rawValue: .admin])
        XCTAssertEqual(try participants(a1, conversation)[dave.did.rawValue]?["role"]?.text, "admin")
        try dave1.policy(conversation, remove: [eve.did.rawValue])
        XCTAssertNil(try participants(a1, conversation)[eve.did.rawValue])
        XCTAssertEqual(refusal(400) { try dave1.policy(conversation, remove: [carol.did.rawValue]) }, "InvalidRequest")
        try a1.policy(conversation, roles: [alice.did.rawValue: .member, bob.did.rawValue: .member])
        XCTAssertEqual(refusal(400) { try dave1.policy(conversation, roles: [dave.did.rawValue: .member]) }, "LastAdminRequired")
        XCTAssertEqual(try participants(carol1, conversation).filter { $0.value["role"]?.text == "admin" }.map(\.key), [dave.did.rawValue])
    }

    // MARK: Reset

    func testAResetStartsANewGenerationAndEveryDeviceRecovers() throws {
        let (a1, alice) = try enrolled(packages: 2)
        let (a2, _) = try enrolled(alice, packages: 4)
        let (bob1, _) = try enrolled(packages: 4)
        let (carol1, _) = try enrolled(packages: 4)
        let conversation = try group(a1, [[a2], [bob1], [carol1]], title: "reset me")
        try bob1.send(conversation, text: "last of generation 0")

        // carol asks; one request at a time; a member cannot activate it.
        let asked = try carol1.requestReset(conversation, reason: .epochDivergence)
        XCTAssertEqual(asked["resetRequest"]?["status"]?.text, "pending")
        XCTAssertEqual(refusal(400) { try bob1.requestReset(conversation) }, "ResetAlreadyPending")
        let request = try XCTUnwrap(try a1.pendingRequests(conversation).resets.first)
        XCTAssertEqual(request["reason"]?.text, "epochDivergence")
        XCTAssertEqual(refusal(400) { try carol1.activateReset(request) }, "AdminRequired")

        // alice activates it: generation 1 at epoch 0, her one leaf, the same participants.
        let participantsBefore = try participants(a1, conversation)
        let activated = try a1.activateReset(request)
        let successor = try XCTUnwrap(ConversationCoordinates(activated["successorCoordinates"]))
        XCTAssertEqual(successor.generation, 1)
        XCTAssertEqual(successor.epoch, 0)
        XCTAssertEqual(ConversationCoordinates(activated["retiredCoordinates"])?.lifecycle, .superseded)
        XCTAssertEqual(try a1.coordinates(conversation), successor)
        XCTAssertEqual(try leafDevices(a1, conversation), [a1.device.deviceID])
        XCTAssertEqual(Set(try participants(a1, conversation).keys), Set(participantsBefore.keys))
        XCTAssertEqual(try a1.read(conversation).map(\.text), ["last of generation 0"])
        let seq = try XCTUnwrap(activated["entry"]?["seq"]?.integer)

        // Every other device reads up to the activation, then asks for a leaf in the new
        // generation; alice adds them one by one (each fulfilment supersedes other open requests).
        for device in [a2, bob1, carol1] {
            _ = try device.read(conversation)
            XCTAssertEqual(device.conversations[conversation]?.ended, .reset(seq: seq))
            assertEnded({ try device.send(conversation, text: "too early") }, "reset")
            try device.requestLeaf(conversation)
            try a1.fulfil(try recovery(for: device, in: conversation, seenBy: a1))
        }
        for device in [a2, bob1, carol1] {
            XCTAssertEqual(try join(device), conversation)
            XCTAssertEqual(device.conversations[conversation]?.title, "reset me")
        }
        XCTAssertEqual(try leafDevices(a1, conversation).count, 4)

        // Messages both ways in the new generation.
        try a1.send(conversation, text: "generation 1")
        try carol1.send(conversation, text: "carol in generation 1")
        XCTAssertEqual(try bob1.read(conversation).map(\.text), ["generation 1", "carol in generation 1"])
        XCTAssertEqual(try a2.read(conversation).map(\.text), ["generation 1", "carol in generation 1"])
        XCTAssertEqual(try a1.read(conversation).map(\.text), ["carol in generation 1"])
        XCTAssertEqual(try carol1.read(conversation).map(\.text), ["generation 1"])
        XCTAssertEqual(a1.conversations[conversation]?.group.epoch, 3)
    }

    func testAResetMayStartWithANewTitle() throws {
        let (a1, _) = try enrolled()
        let (bob1, _) = try enrolled(packages: 4)
        let conversation = try group(a1, [[bob1]], title: "first title")
        try a1.rename(conversation, title: "second title")
        XCTAssertEqual(try bob1.read(conversation), [])
        XCTAssertEqual(bob1.conversations[conversation]?.title, "second title")

        // bob lost his state and asks; alice activates with a title of her own: metadata version 3,
        // written by her at the activation's entry.
        try bob1.requestReset(conversation, reason: .localStateLost)
        let activated = try a1.activateReset(try XCTUnwrap(try a1.pendingRequests(conversation).resets.first), title: "generation two")
        let snapshot = try a1.state(conversation)["metadataSnapshot"]
        XCTAssertEqual(snapshot?["metadataVersion"]?.integer, 3)
        XCTAssertEqual(snapshot?["authorProof"]?["originSeq"]?.integer, activated["entry"]?["seq"]?.integer)
        XCTAssertEqual(snapshot?["authorProof"]?["authorDeviceId"]?.uuid, a1.device.deviceID)
        XCTAssertEqual(a1.conversations[conversation]?.title, "generation two")

        // bob recovers and reads it; the next rename follows on from it.
        _ = try bob1.read(conversation)
        try bob1.requestLeaf(conversation)
        try a1.fulfil(try recovery(for: bob1, in: conversation, seenBy: a1))
        try join(bob1)
        XCTAssertEqual(bob1.conversations[conversation]?.title, "generation two")
        try a1.rename(conversation, title: "third title")
        _ = try bob1.read(conversation)
        XCTAssertEqual(bob1.conversations[conversation]?.title, "third title")
        XCTAssertEqual(try a1.state(conversation)["metadataSnapshot"]?["metadataVersion"]?.integer, 4)
    }

    // MARK: Close

    func testAGroupClosesWhenOneAdminIsLeftAndADirectOneByEitherSide() throws {
        let (a1, alice) = try enrolled()
        let (a2, _) = try enrolled(alice)
        let (bob1, bob) = try enrolled()
        let conversation = try group(a1, [[a2], [bob1]])

        // Not while bob takes part; once his leave is fulfilled, alice (one account, two devices) closes.
        XCTAssertEqual(refusal(400) { try a1.close(conversation) }, "ConversationCloseNotAllowed")
        try bob1.requestLeave(conversation)
        try a2.fulfilLeave(try XCTUnwrap(try a2.pendingRequests(conversation).leaves.first))
        try a2.send(conversation, text: "closing soon")
        let a2Stream = try a2.subscribe(try a2.inventory())
        let closed = try a1.close(conversation)
        let seq = try XCTUnwrap(closed["tombstone"]?["terminalSeq"]?.integer)
        // alice's phone hears of it on its stream.
        var event = try a2Stream.next().payload
        while event.type != ChatSchema.typePrefix + "conversationClosedEvent" { event = try a2Stream.next().payload }
        XCTAssertEqual(event["conversationId"]?.uuid, conversation)
        XCTAssertEqual(event["terminalSeq"]?.integer, seq)
        XCTAssertEqual(closed["entry"]?["seq"]?.integer, seq)
        XCTAssertEqual(ConversationCoordinates(closed["tombstone"]?["retired"])?.lifecycle, .superseded)
        XCTAssertEqual(a1.conversations[conversation]?.ended, .closed(seq: seq))
        XCTAssertEqual(try a1.read(conversation).map(\.text), ["closing soon"])
        XCTAssertEqual(try a2.read(conversation), [])
        XCTAssertEqual(a2.conversations[conversation]?.ended, .closed(seq: seq))
        assertEnded({ try a2.send(conversation, text: "anyone?") }, "closed")
        let item = try XCTUnwrap(try a2.inventory().conversations.first { $0["conversationId"]?.uuid == conversation })
        XCTAssertEqual(item.type, ChatSchema.typePrefix + "conversationCloseTombstone")
        XCTAssertEqual(item["closedByDeviceId"]?.uuid, a1.device.deviceID)
        XCTAssertEqual(refusal(400) { try a2.state(conversation) }, "ConversationNotFound")

        // A direct conversation: bob, who did not create it, closes it after a message each way.
        let (direct, _) = try a1.create(inviting: [bob.did.rawValue], direct: true, title: "just us")
        try bob1.accept(direct)
        try a1.fulfil(try recovery(for: bob1, in: direct, seenBy: a1))
        try join(bob1)
        try a1.send(direct, text: "hi bob")
        XCTAssertEqual(try bob1.read(direct).map(\.text), ["hi bob"])
        let directClosed = try bob1.close(direct)
        let directSeq = try XCTUnwrap(directClosed["tombstone"]?["terminalSeq"]?.integer)
        XCTAssertEqual(directClosed["tombstone"]?["closedByDid"]?.text, bob.did.rawValue)
        XCTAssertEqual(try a1.read(direct), [])
        XCTAssertEqual(a1.conversations[direct]?.ended, .closed(seq: directSeq))
        assertEnded({ try a1.send(direct, text: "bob?") }, "closed")
    }

    /// `client`'s state through a file, in a new client of the same device.
    func restarted(_ client: ChatClient) throws -> ChatClient {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chat-lifecycle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("state.json")
        try ChatClientState(of: client).save(to: file)
        let restored = ChatClient(device: client.device, api: client.api)
        try XCTUnwrap(try ChatClientState.load(from: file)).restore(into: restored)
        return restored
    }
}
