import Foundation
import HTTP
import MLS
import XCTest

/// Hostile or stale input to the commit and message paths: each gets its XRPC error and leaves the
/// conversation exactly as it was (same epoch, same messages).
final class AdversarialCommitTests: ServiceTestCase {
    struct Setup {
        let flow: ChatFlow
        let alice: MLSTestUser
        let bob: MLSTestUser
        let convo: String
    }

    func makeGroup() throws -> Setup {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), bob = flow.user()
        try flow.publishKeyPackage(bob)
        let convo = try flow.createConvo(alice, with: [bob])
        try flow.join(bob, convo)
        return Setup(flow: flow, alice: alice, bob: bob, convo: convo)
    }

    /// The conversation's epoch and last seq, to show a refused request changed nothing.
    func snapshot(_ setup: Setup) throws -> [Int] {
        [try setup.flow.epoch(setup.alice, setup.convo) ?? -1, try setup.flow.lastSeq(setup.alice, setup.convo)]
    }

    func commitGroupChange(_ setup: Setup, as user: MLSTestUser, _ commit: [UInt8]) throws -> ServiceHarness.Reply {
        try service.call("blue.catbird.mls.commitGroupChange", as: user.identity, json: [
            "convoId": setup.convo, "commit": ["$bytes": Base64Test.encode(commit)],
        ])
    }

    func test_forgedCommitSignature_isRejected() throws {
        let setup = try makeGroup()
        let before = try snapshot(setup)
        var bytes = try XCTUnwrap(setup.alice.groups[setup.convo]).update().commit.encoded()
        guard case .publicMessage(var message) = try MLSMessage(decoding: bytes).body else { return XCTFail() }
        message.auth.signature[message.auth.signature.count / 2] ^= 0x01
        bytes = MLSMessage(body: .publicMessage(message)).encoded()
        let reply = try commitGroupChange(setup, as: setup.alice, bytes)
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "InvalidCommit")
        XCTAssertEqual(try snapshot(setup), before)
    }

    func test_commitFromNonMember_isRejected() throws {
        let setup = try makeGroup()
        let before = try snapshot(setup)
        let outsider = setup.flow.user()
        let commit = try XCTUnwrap(setup.alice.groups[setup.convo]).update().commit.encoded()
        let reply = try commitGroupChange(setup, as: outsider, commit)
        XCTAssertEqual(reply.status, 403)
        XCTAssertEqual(reply.error, "NotMember")
        XCTAssertEqual(try snapshot(setup), before)
    }

    func test_commitSignedByAnotherMembersLeaf_isRejected() throws {
        let setup = try makeGroup()
        let before = try snapshot(setup)
        let commit = try XCTUnwrap(setup.alice.groups[setup.convo]).update().commit.encoded()
        let reply = try commitGroupChange(setup, as: setup.bob, commit)
        XCTAssertEqual(reply.status, 403)
        XCTAssertEqual(reply.error, "NotCommitter")
        XCTAssertEqual(try snapshot(setup), before)
    }

    func test_replayedOldCommit_isRejected() throws {
        let setup = try makeGroup()
        let output = try XCTUnwrap(setup.alice.groups[setup.convo]).update()
        XCTAssertEqual(try commitGroupChange(setup, as: setup.alice, output.commit.encoded()).status, 200)
        let before = try snapshot(setup)
        let replay = try commitGroupChange(setup, as: setup.alice, output.commit.encoded())
        XCTAssertEqual(replay.status, 409)
        XCTAssertTrue(["CommitConflict", "EpochMismatch"].contains(replay.error ?? ""), "\(replay.json)")
        XCTAssertEqual(try snapshot(setup), before)
    }

    func test_racingCommitsFromSameEpoch_exactlyOneWins() throws {
        let setup = try makeGroup()
        let before = try snapshot(setup)
        let fromAlice = try XCTUnwrap(setup.alice.groups[setup.convo]).update().commit.encoded()
        let fromBob = try XCTUnwrap(setup.bob.groups[setup.convo]).update().commit.encoded()
        // Two connections at once: requests built first, then sent from two threads.
        let service = try self.service
        let nsid = "blue.catbird.mls.commitGroupChange"
        let requests = [(setup.alice, fromAlice), (setup.bob, fromBob)].map { user, commit in
            (headers: [("Authorization", "Bearer " + user.identity.token(audience: ServiceHarness.serviceDID, nsid: nsid)),
                       ("Content-Type", "application/json")],
             body: Array(try! JSONSerialization.data(withJSONObject: [
                 "convoId": setup.convo, "commit": ["$bytes": Base64Test.encode(commit)]])))
        }
        let url = service.baseURL + "/xrpc/" + nsid
        let client = HTTPClient(timeout: 10, allowPrivateAddresses: true)
        let replies = UnsafeSendableBox<[Int: ServiceHarness.Reply]>([:])
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            guard let response = try? client.send(method: "POST", url, headers: requests[index].headers, body: requests[index].body) else { return }
            lock.withLock { replies.value[index] = ServiceHarness.Reply(status: response.status, headers: response.headers, body: response.body) }
        }
        let statuses = replies.value.values.map(\.status).sorted()
        XCTAssertEqual(statuses, [200, 409], "\(replies.value.values.map(\.json))")
        XCTAssertEqual(replies.value.values.first { $0.status == 409 }?.error, "CommitConflict")
        XCTAssertEqual(try snapshot(setup), [before[0] + 1, before[1] + 1])
        let commits = try service.call("blue.catbird.mls.getCommits", as: setup.alice.identity,
                                       query: [("convoId", setup.convo), ("fromEpoch", String(before[0]))])
        XCTAssertEqual((commits.json["commits"] as? [Any])?.count, 1)
    }

    func test_keyPackageWithSomeoneElsesDID_isRejected() throws {
        let setup = try makeGroup()
        let mallory = setup.flow.user()
        let forged = try mallory.makeKeyPackage(credential: setup.bob.credential)
        let reply = try service.call("blue.catbird.mls.publishKeyPackage", as: mallory.identity, json: [
            "keyPackage": MLSTestUser.bytes(MLSMessage(body: .keyPackage(forged.keyPackage))),
            "cipherSuite": "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519",
        ])
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "InvalidKeyPackage")
        let stats = try service.call("blue.catbird.mls.getKeyPackageStats", as: mallory.identity).json
        XCTAssertEqual(stats["available"] as? Int, 0)
    }

    func test_keyPackageWithTamperedSignature_isRejected() throws {
        let setup = try makeGroup()
        var bundle = try setup.bob.makeKeyPackage().keyPackage
        bundle.signature[3] ^= 0x40
        let reply = try service.call("blue.catbird.mls.publishKeyPackage", as: setup.bob.identity, json: [
            "keyPackage": MLSTestUser.bytes(MLSMessage(body: .keyPackage(bundle))),
            "cipherSuite": "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519",
        ])
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "InvalidKeyPackage")
    }

    func test_addOfUnpublishedKeyPackage_rollsBack() throws {
        let setup = try makeGroup()
        let before = try snapshot(setup)
        let carol = setup.flow.user()
        let unpublished = try carol.makeKeyPackage()
        let output = try XCTUnwrap(setup.alice.groups[setup.convo]).add(keyPackages: [unpublished.keyPackage])
        let reply = try service.call("blue.catbird.mls.addMembers", as: setup.alice.identity, json: [
            "convoId": setup.convo, "commit": MLSTestUser.bytes(output.commit), "welcomeMessage": MLSTestUser.bytes(output.welcome!),
        ])
        XCTAssertEqual(reply.status, 404)
        XCTAssertEqual(reply.error, "KeyPackageNotFound")
        XCTAssertEqual(try snapshot(setup), before)
        let welcome = try service.call("blue.catbird.mls.getWelcome", as: carol.identity, query: [("convoId", setup.convo)])
        XCTAssertEqual(welcome.status, 404)
    }

    func test_removeByNonAdmin_isRejected() throws {
        let setup = try makeGroup()
        let before = try snapshot(setup)
        let aliceLeaf = try XCTUnwrap(setup.alice.groups[setup.convo]?.ownLeaf)
        let output = try XCTUnwrap(setup.bob.groups[setup.convo]).remove(leaves: [aliceLeaf])
        let reply = try service.call("blue.catbird.mls.removeMember", as: setup.bob.identity, json: [
            "convoId": setup.convo, "targetDid": setup.alice.did, "commit": MLSTestUser.bytes(output.commit),
            "idempotencyKey": "x",
        ])
        XCTAssertEqual(reply.status, 403)
        XCTAssertEqual(reply.error, "NotAdmin")
        let sneaky = try commitGroupChange(setup, as: setup.bob, output.commit.encoded())
        XCTAssertEqual(sneaky.status, 403)
        XCTAssertEqual(try snapshot(setup), before)
    }

    func test_privateMessageForAnotherGroup_isRejected() throws {
        let setup = try makeGroup()
        let other = try setup.flow.createConvo(setup.alice, with: [])
        let before = try snapshot(setup)
        var otherGroup = try XCTUnwrap(setup.alice.groups[other])
        let message = try otherGroup.encrypt(Array("wrong room".utf8))
        let reply = try service.call("blue.catbird.mls.sendMessage", as: setup.alice.identity, json: [
            "convoId": setup.convo, "msgId": MessageID.next(), "epoch": 1, "ciphertext": MLSTestUser.bytes(message),
        ])
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "InvalidMessage")
        XCTAssertEqual(try snapshot(setup), before)
    }

    func test_privateMessageFromStaleEpoch_isRejected() throws {
        let setup = try makeGroup()
        var stale = try XCTUnwrap(setup.bob.groups[setup.convo])
        let output = try XCTUnwrap(setup.alice.groups[setup.convo]).update()
        XCTAssertEqual(try commitGroupChange(setup, as: setup.alice, output.commit.encoded()).status, 200)
        let before = try snapshot(setup)
        let message = try stale.encrypt(Array("old epoch".utf8))
        let reply = try service.call("blue.catbird.mls.sendMessage", as: setup.bob.identity, json: [
            "convoId": setup.convo, "msgId": MessageID.next(), "epoch": Int(stale.epoch), "ciphertext": MLSTestUser.bytes(message),
        ])
        XCTAssertEqual(reply.status, 409)
        XCTAssertEqual(reply.error, "EpochMismatch")
        XCTAssertEqual(try snapshot(setup), before)
    }

    func test_handshakeAsPrivateMessage_orCommitAsApplication_isRejected() throws {
        let setup = try makeGroup()
        let commit = try XCTUnwrap(setup.alice.groups[setup.convo]).update().commit
        let reply = try service.call("blue.catbird.mls.sendMessage", as: setup.alice.identity, json: [
            "convoId": setup.convo, "msgId": MessageID.next(), "epoch": 1, "ciphertext": MLSTestUser.bytes(commit),
        ])
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "InvalidMessage")
    }

    func test_oversizeCiphertext_is413() throws {
        let setup = try makeGroup()
        let before = try snapshot(setup)
        let huge = [UInt8](repeating: 7, count: (10 << 20) + 1)
        let reply = try service.call("blue.catbird.mls.sendMessage", as: setup.alice.identity, json: [
            "convoId": setup.convo, "msgId": MessageID.next(), "epoch": 1, "ciphertext": ["$bytes": Base64Test.encode(huge)],
        ])
        XCTAssertEqual(reply.status, 413)
        XCTAssertEqual(try snapshot(setup), before)
    }

    func test_groupInfoNotMatchingTheCommit_isRejected() throws {
        let setup = try makeGroup()
        let before = try snapshot(setup)
        let group = try XCTUnwrap(setup.alice.groups[setup.convo])
        let first = try group.update()
        let second = try group.update()
        let reply = try service.call("blue.catbird.mls.commitGroupChange", as: setup.alice.identity, json: [
            "convoId": setup.convo, "commit": MLSTestUser.bytes(first.commit),
            "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(second.groupInfo))),
        ])
        XCTAssertEqual(reply.status, 400)
        XCTAssertEqual(reply.error, "InvalidGroupInfo")
        XCTAssertEqual(try snapshot(setup), before)
    }
}

/// A box for results gathered from concurrent test threads under a lock.
final class UnsafeSendableBox<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
