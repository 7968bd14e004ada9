import ChatProtocol
import Foundation
import MLSClient
import TestSupport
import XCTest

/// Leave and reset requests, policy transitions and closes (issue 33), each body signed by hand so
/// that each precondition is met or broken on purpose: every refusal with its contract error, and
/// what succeeds read back from the service.
final class ChatRequestsAndPolicyTests: ChatContractTestCase {
    struct Group {
        let alice: ChatClient, bob: ChatClient, carol: ChatClient
        let bobDID: String, carolDID: String
        let id: ChatUUID
    }

    /// alice (admin) and bob (member) hold leaves; carol is invited, pending.
    func group() throws -> Group {
        let (alice, _) = try enrolled()
        let (bob, bobIdentity) = try enrolled()
        let (carol, carolIdentity) = try enrolled()
        let (id, _) = try alice.create(inviting: [bobIdentity.did.rawValue, carolIdentity.did.rawValue])
        try bob.accept(id)
        try alice.fulfil(try recovery(for: bob, in: id, seenBy: alice))
        try join(bob)
        return Group(alice: alice, bob: bob, carol: carol, bobDID: bobIdentity.did.rawValue, carolDID: carolIdentity.did.rawValue, id: id)
    }

    func leaveRequest(_ client: ChatClient, _ conversation: ChatUUID, id: ChatUUID = .random()) throws -> ChatValue {
        try client.signed("requestLeave", .leaveRequest, ["leaveRequestId": .uuid(id), "prior": try client.coordinates(conversation).value])
    }

    func zeroLeafLeave(_ client: ChatClient, _ conversation: ChatUUID, at coordinates: ConversationCoordinates? = nil) throws -> ChatValue {
        let prior = try coordinates ?? client.coordinates(conversation)
        var next = prior
        next.stateVersion += 1
        return try client.signed("requestLeave", .zeroLeafLeave, ["transitionId": .uuid(.random()), "prior": prior.value, "next": next.value])
    }

    func policy(_ client: ChatClient, _ conversation: ChatUUID, _ changes: [ChatValue], transitionID: ChatUUID = .random()) throws -> ChatValue {
        let prior = try client.coordinates(conversation)
        var next = prior
        next.stateVersion += 1
        return try client.signed("submitTransition", .policyTransition, [
            "transitionId": .uuid(transitionID), "prior": prior.value, "next": next.value, "participantChanges": .array(changes),
        ])
    }

    func change(_ def: String, _ members: [String: ChatValue]) -> ChatValue { .tagged(def, members) }

    func pendingLeaves(_ client: ChatClient, _ conversation: ChatUUID) throws -> [ChatValue] {
        try client.query("getConversationState", [("conversationId", conversation.description)])["pendingLeaveRequests"]?.array ?? []
    }

    func testLeaveRequestsOnePendingCancelledOrMadeStaleByAChange() throws {
        let g = try group()
        let leaveID = ChatUUID.random()
        let result = try leaveRequest(g.bob, g.id, id: leaveID)["result"]
        XCTAssertEqual(result?.type, ChatSchema.typePrefix + "durableLeaveRequestResult")
        XCTAssertEqual(result?["leaveRequest"]?["status"]?.text, "pending")
        XCTAssertEqual(try pendingLeaves(g.alice, g.id).map { $0["leaveRequestId"]?.uuid }, [leaveID])
        XCTAssertEqual(refusal(400) { try self.leaveRequest(g.bob, g.id) }, "LeaveAlreadyPending")

        // Another account cannot cancel it; its own can, once.
        func cancel(_ client: ChatClient) throws -> ChatValue {
            try client.signed("cancelLeave", .leaveCancellation, ["conversationId": .uuid(g.id), "leaveRequestId": .uuid(leaveID)])
        }
        XCTAssertEqual(refusal(400) { try cancel(g.alice) }, "LeaveRequestNotFound")
        XCTAssertEqual(try cancel(g.bob)["leaveRequest"]?["status"]?.text, "cancelled")
        XCTAssertEqual(refusal(400) { try cancel(g.bob) }, "CancellationConflict")
        XCTAssertTrue(try pendingLeaves(g.alice, g.id).isEmpty)

        // A request made at coordinates a policy transition leaves is stale.
        _ = try leaveRequest(g.bob, g.id)
        _ = try policy(g.alice, g.id, [change("changeParticipantRole", ["userDid": .text(g.bobDID), "role": .text("admin")])])
        XCTAssertTrue(try pendingLeaves(g.alice, g.id).isEmpty)
        // Both entries, the request and its cancellation, are in the log the leaves read.
        let kinds = try g.alice.query("getEntries", [("conversationId", g.id.description), ("afterSeq", "0"), ("limit", "100")])["entries"]?
            .array?.compactMap { $0.type?.replacingOccurrences(of: ChatSchema.typePrefix, with: "") } ?? []
        XCTAssertEqual(kinds.filter { $0.hasPrefix("leave") }, ["leaveRequestEntry", "leaveCancellationEntry", "leaveRequestEntry"])
        XCTAssertEqual(kinds.last, "policyEntry")
    }

    func testWhoMayLeaveAndHow() throws {
        let g = try group()
        // The last active admin stays; a member holding leaves asks, and cannot leave at once.
        XCTAssertEqual(refusal(400) { try self.leaveRequest(g.alice, g.id) }, "LastAdminRequired")
        XCTAssertEqual(refusal(400) { try self.zeroLeafLeave(g.bob, g.id) }, "InvalidRequest")
        // A pending invitee without leaves leaves at once (declines): the state version moves.
        let before = try g.alice.coordinates(g.id)
        let result = try zeroLeafLeave(g.carol, g.id)["result"]
        XCTAssertEqual(result?.type, ChatSchema.typePrefix + "zeroLeafLeaveResult")
        XCTAssertEqual(try g.alice.coordinates(g.id).stateVersion, before.stateVersion + 1)
        XCTAssertEqual(refusal(400) { try g.carol.state(g.id) }, "NotEntitled")
        XCTAssertEqual(refusal(400) { try self.zeroLeafLeave(g.carol, g.id, at: before) }, "StaleCoordinates")

        // A direct conversation is closed, not left.
        let (dan, danIdentity) = try enrolled()
        _ = dan
        let (direct, _) = try g.alice.create(inviting: [danIdentity.did.rawValue], direct: true)
        XCTAssertEqual(refusal(400) { try self.zeroLeafLeave(dan, direct) }, "DirectParticipantMutationForbidden")
    }

    func testPolicyTransitionsNeedAnAdminKeepOneAndInviteWithTheirProvenance() throws {
        let g = try group()
        let (dan, danIdentity) = try enrolled()
        let dan_ = danIdentity.did.rawValue
        let transition = ChatUUID.random()
        let provenance = ChatValue.object(["invitationTransitionId": .uuid(transition), "invitedByDid": .text(g.alice.device.did.rawValue),
                                           "invitedByDeviceId": .uuid(g.alice.device.deviceID)])
        let invite = change("addParticipant", ["userDid": .text(dan_), "role": .text("member"), "status": .text("pending"),
                                               "invitationProvenance": provenance])
        let entries = try count("chat_entries")
        XCTAssertEqual(refusal(400) { try self.policy(g.bob, g.id, [invite], transitionID: transition) }, "AdminRequired")
        XCTAssertEqual(refusal(400) { try self.policy(g.alice, g.id, [invite]) }, "InvitationProvenanceMismatch")
        XCTAssertEqual(refusal(400) {
            try self.policy(g.alice, g.id, [self.change("changeParticipantRole", ["userDid": .text(g.alice.device.did.rawValue), "role": .text("member")])])
        }, "LastAdminRequired")
        XCTAssertEqual(refusal(400) { try self.policy(g.alice, g.id, [self.change("removeParticipant", ["userDid": .text(g.bobDID)])]) },
                       "InvalidRequest", "bob's device holds a leaf: a commit removes it first")
        let unsorted = [g.bobDID, g.carolDID].sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.reversed()
            .map { self.change("changeParticipantRole", ["userDid": .text($0), "role": .text("admin")]) }
        XCTAssertEqual(refusal(400) { try self.policy(g.alice, g.id, Array(unsorted)) }, "InvalidRequest")
        XCTAssertEqual(try count("chat_entries"), entries, "nothing refused was stored")

        // The invitation made right: dan is a pending member, accepts, and is given a leaf.
        let output = try policy(g.alice, g.id, [invite], transitionID: transition)
        XCTAssertEqual(output["entry"]?.type, ChatSchema.typePrefix + "policyEntry")
        let dans = try XCTUnwrap(try g.alice.state(g.id)["participants"]?.array?.first { $0["userDid"]?.text == dan_ })
        XCTAssertEqual(dans["status"]?.text, "pending")
        XCTAssertEqual(dans["invitationProvenance"], provenance)
        try dan.accept(g.id)
        try g.bob.sync(g.id)
        try g.bob.fulfil(try recovery(for: dan, in: g.id, seenBy: g.bob))
        try join(dan)
        // A pending invitee is removed (uninvited) by an admin.
        _ = try policy(g.alice, g.id, [change("removeParticipant", ["userDid": .text(g.carolDID)])])
        XCTAssertNil(try g.alice.state(g.id)["participants"]?.array?.first { $0["userDid"]?.text == g.carolDID })
    }

    func testResetRequestsOnePerConversation() throws {
        let g = try group()
        func request(_ client: ChatClient) throws -> ChatValue {
            try client.signed("requestReset", .resetRequest, ["resetRequestId": .uuid(.random()),
                                                              "prior": try g.alice.coordinates(g.id).value, "reason": .text("localStateLost")])
        }
        let before = try g.alice.state(g.id)
        let made = try request(g.bob)
        XCTAssertEqual(made["resetRequest"]?["status"]?.text, "pending")
        // An entry of the log; the coordinates do not move.
        XCTAssertEqual(made["entry"]?["seq"]?.integer, (before["snapshotSeq"]?.integer ?? 0) + 1)
        XCTAssertEqual(try g.alice.state(g.id)["coordinates"], before["coordinates"])
        XCTAssertEqual(refusal(400) { try request(g.alice) }, "ResetAlreadyPending")
        XCTAssertEqual(refusal(400) { try request(g.carol) }, "NotMember", "a pending invitee does not ask for resets")
        let state = try g.alice.query("getConversationState", [("conversationId", g.id.description)])
        XCTAssertEqual(state["pendingResetRequests"]?.array?.count, 1)
    }

    func testClosing() throws {
        let g = try group()
        func close(_ client: ChatClient, _ conversation: ChatUUID, kind: String, at coordinates: ConversationCoordinates? = nil) throws -> ChatValue {
            let prior = try coordinates ?? client.coordinates(conversation)
            var retired = prior
            retired.stateVersion += 1
            retired.lifecycle = .superseded
            return try client.signed("closeConversation", .conversationClose, [
                "transitionId": .uuid(.random()), "conversationKind": .text(kind), "prior": prior.value, "retired": retired.value,
            ])
        }
        XCTAssertEqual(refusal(400) { try close(g.alice, g.id, kind: "group") }, "ConversationCloseNotAllowed")

        // Either side closes a direct conversation, the invitee too, before accepting.
        let (dan, danIdentity) = try enrolled()
        let (direct, _) = try g.alice.create(inviting: [danIdentity.did.rawValue], direct: true)
        let closed = try close(dan, direct, kind: "direct")["result"]
        let tombstone = try XCTUnwrap(closed?["tombstone"])
        XCTAssertEqual(tombstone["closedByDid"]?.text, danIdentity.did.rawValue)
        XCTAssertEqual(tombstone["retired"]?["lifecycle"]?.text, "superseded")
        XCTAssertEqual(closed?["entry"]?["tombstone"], tombstone)
        // Alice's inventory shows the tombstone; nothing more is accepted; the pair may start again.
        let item = try XCTUnwrap(try g.alice.inventory().conversations.first { $0["conversationId"]?.uuid == direct })
        XCTAssertEqual(item.type, ChatSchema.typePrefix + "conversationCloseTombstone")
        XCTAssertEqual(refusal(400) { try g.alice.state(direct) }, "ConversationNotFound")
        let retired = try XCTUnwrap(ConversationCoordinates(tombstone["retired"]))
        XCTAssertEqual(refusal(400) { try close(g.alice, direct, kind: "direct", at: retired) }, "StaleCoordinates")
        let (again, result) = try g.alice.create(inviting: [danIdentity.did.rawValue], direct: true)
        XCTAssertEqual(result.type, ChatSchema.typePrefix + "conversationCreatedResult")
        XCTAssertNotEqual(again, direct)
    }
}
