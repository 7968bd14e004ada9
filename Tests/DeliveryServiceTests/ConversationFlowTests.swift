import Foundation
import MLS
import XCTest

/// Issue 6's end-to-end flow: real tokens, real MLS clients built from the project's `Group`, the
/// real server and PostgreSQL. Three users publish KeyPackages, one creates a group with the
/// others, all exchange and decrypt messages, one rejoins by external commit, one is removed and
/// can no longer read or send, one leaves.
final class ConversationFlowTests: ServiceTestCase {
    func test_threeUsers_chat_rejoin_remove_leave() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), bob = flow.user(), carol = flow.user()
        try flow.publishKeyPackage(bob)
        try flow.publishKeyPackage(carol)

        let convo = try flow.createConvo(alice, with: [bob, carol])
        let view = try service.call("blue.catbird.mls.getConvo", as: alice.identity, query: [("convoId", convo)]).json
        XCTAssertEqual(view["epoch"] as? Int, 1)
        XCTAssertEqual(Set((view["members"] as? [[String: Any]] ?? []).compactMap { $0["did"] as? String }),
                       [alice.did, bob.did, carol.did])
        XCTAssertEqual(view["creator"] as? String, alice.did)

        // Key packages were consumed by the validated commit.
        let stats = try service.call("blue.catbird.mls.getKeyPackageStats", as: bob.identity).json
        XCTAssertEqual(stats["available"] as? Int, 0)
        XCTAssertEqual(stats["consumed"] as? Int, 1)

        try flow.join(bob, convo)
        try flow.join(carol, convo)
        XCTAssertEqual(bob.groups[convo]?.epochAuthenticator, alice.groups[convo]?.epochAuthenticator)
        XCTAssertEqual(carol.groups[convo]?.epochAuthenticator, alice.groups[convo]?.epochAuthenticator)

        XCTAssertEqual(try flow.send(alice, convo, "hello from alice").status, 200)
        XCTAssertEqual(try flow.send(bob, convo, "hi alice, bob here").status, 200)
        XCTAssertEqual(try flow.sync(carol, convo), ["hello from alice", "hi alice, bob here"])
        XCTAssertEqual(try flow.sync(bob, convo), ["hello from alice"])
        XCTAssertEqual(try flow.sync(alice, convo), ["hi alice, bob here"])

        // Bob loses his state and rejoins by external commit, replacing his old leaf.
        let info = try service.call("blue.catbird.mls.getGroupInfo", as: bob.identity, query: [("convoId", convo)])
        XCTAssertEqual(info.status, 200, "\(info.json)")
        guard case .groupInfo(let groupInfo) = try MLSMessage(decoding: try XCTUnwrap(Base64Test.decode(info.json["groupInfo"]))).body else {
            return XCTFail("getGroupInfo did not return a GroupInfo")
        }
        let bobLeaf = try XCTUnwrap(bob.groups[convo]?.ownLeaf)
        let rejoined = try Group.joinByExternalCommit(groupInfo: groupInfo, credential: bob.credential,
                                                      signingKey: bob.signingKey, removing: bobLeaf)
        let external = try service.call("blue.catbird.mls.processExternalCommit", as: bob.identity, json: [
            "convoId": convo, "externalCommit": MLSTestUser.bytes(rejoined.commit),
        ])
        XCTAssertEqual(external.status, 200, "\(external.json)")
        XCTAssertEqual(external.json["epoch"] as? Int, 2)
        bob.groups[convo] = rejoined.group
        bob.readSeq[convo] = try flow.lastSeq(bob, convo)
        XCTAssertEqual(try flow.sync(alice, convo), [])
        XCTAssertEqual(try flow.sync(carol, convo), [])
        XCTAssertEqual(alice.groups[convo]?.epochAuthenticator, bob.groups[convo]?.epochAuthenticator)
        XCTAssertEqual(try flow.send(bob, convo, "bob is back").status, 200)
        XCTAssertEqual(try flow.sync(carol, convo), ["bob is back"])
        XCTAssertEqual(try flow.sync(alice, convo), ["bob is back"])

        // Alice (admin) removes Carol.
        let removed = try flow.remove(carol, by: alice, from: convo, idempotencyKey: "remove-carol")
        XCTAssertEqual(removed.status, 200, "\(removed.json)")
        XCTAssertEqual(removed.json["newEpoch"] as? Int, 3)
        XCTAssertEqual(try flow.sync(bob, convo), [])
        XCTAssertEqual(bob.groups[convo]?.epoch, 3)

        let carolReads = try service.call("blue.catbird.mls.getMessages", as: carol.identity, query: [("convoId", convo)])
        XCTAssertEqual(carolReads.status, 403)
        XCTAssertEqual(carolReads.error, "NotMember")
        let carolSends = try flow.send(carol, convo, "am I still here?")
        XCTAssertEqual(carolSends.status, 403)
        XCTAssertEqual(try flow.send(alice, convo, "carol is gone").status, 200)
        XCTAssertEqual(try flow.sync(bob, convo), ["carol is gone"])

        // Bob leaves: his self-Remove proposal is kept, and Alice's commit removes him.
        var bobGroup = try XCTUnwrap(bob.groups[convo])
        let proposal = try bobGroup.proposeSelfRemove()
        let leave = try service.call("blue.catbird.mls.leaveConvo", as: bob.identity, json: [
            "convoId": convo, "proposal": MLSTestUser.bytes(proposal),
        ])
        XCTAssertEqual(leave.status, 200, "\(leave.json)")
        XCTAssertEqual(leave.json["pendingRemoval"] as? Bool, true)
        // Alice learns of the proposal through getMessages and commits it by reference.
        XCTAssertEqual(try flow.sync(alice, convo), [])
        XCTAssertEqual(alice.groups[convo]?.pendingProposals.count, 1)
        let committed = try flow.commitGroupChange(alice, convo, try XCTUnwrap(alice.groups[convo]).commit())
        XCTAssertEqual(committed.status, 200, "\(committed.json)")
        let members = try service.call("blue.catbird.mls.getConvo", as: alice.identity, query: [("convoId", convo)])
            .json["members"] as? [[String: Any]] ?? []
        XCTAssertEqual(members.compactMap { $0["did"] as? String }, [alice.did])
        XCTAssertEqual(try flow.epoch(alice, convo), 4)
    }

    func test_idempotencyKey_returnsFirstResponse() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user()
        let convo = try flow.createConvo(alice, with: [])
        var group = try XCTUnwrap(alice.groups[convo])
        let message = try group.encrypt(Array("once".utf8))
        let body: [String: Any] = ["convoId": convo, "msgId": MessageID.next(), "epoch": Int(group.epoch),
                                   "ciphertext": MLSTestUser.bytes(message), "idempotencyKey": "k1"]
        let first = try service.call("blue.catbird.mls.sendMessage", as: alice.identity, json: body)
        let second = try service.call("blue.catbird.mls.sendMessage", as: alice.identity, json: body)
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(first.json["seq"] as? Int, second.json["seq"] as? Int)
        XCTAssertEqual(first.json["receivedAt"] as? String, second.json["receivedAt"] as? String)
    }

    func test_duplicateMsgId_returnsFirstSeq() throws {
        let flow = ChatFlow(service: try service)
        let alice = flow.user()
        let convo = try flow.createConvo(alice, with: [])
        var group = try XCTUnwrap(alice.groups[convo])
        let id = MessageID.next()
        var seqs: [Int] = []
        for text in ["a", "b"] {
            let message = try group.encrypt(Array(text.utf8))
            let reply = try service.call("blue.catbird.mls.sendMessage", as: alice.identity, json: [
                "convoId": convo, "msgId": id, "epoch": Int(group.epoch), "ciphertext": MLSTestUser.bytes(message),
            ])
            XCTAssertEqual(reply.status, 200)
            seqs.append(reply.json["seq"] as? Int ?? -1)
        }
        XCTAssertEqual(seqs[0], seqs[1])
    }
}
