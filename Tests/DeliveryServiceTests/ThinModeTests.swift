import Basics
@testable import DeliveryService
import Foundation
import MLS
import Primitives
import XCTest

/// Thin delivery-service mode (API.md): sendMessage with the ciphertext's hash and size instead of
/// its bytes, against the real service and PostgreSQL.
final class ThinModeTests: ServiceTestCase {
    struct Setup {
        let flow: ChatFlow
        let alice: MLSTestUser
        let bob: MLSTestUser
        let carol: MLSTestUser
        let convo: String
    }

    func makeGroup() throws -> Setup {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), bob = flow.user(), carol = flow.user()
        try flow.publishKeyPackage(bob)
        try flow.publishKeyPackage(carol)
        let convo = try flow.createConvo(alice, with: [bob, carol])
        try flow.join(bob, convo)
        try flow.join(carol, convo)
        return Setup(flow: flow, alice: alice, bob: bob, carol: carol, convo: convo)
    }

    /// A real PrivateMessage from `user`, as a thin-mode client would store it elsewhere.
    func ciphertext(_ setup: Setup, from user: MLSTestUser, _ text: String) throws -> [UInt8] {
        var group = try XCTUnwrap(user.groups[setup.convo])
        let message = try group.encrypt(Array(text.utf8))
        user.groups[setup.convo] = group
        return message.encoded()
    }

    func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    func sendThin(_ setup: Setup, as user: MLSTestUser, epoch: Int? = nil, msgId: String = MessageID.next(),
                  hash: String, size: Int) throws -> ServiceHarness.Reply {
        try service.call("blue.catbird.mls.sendMessage", as: user.identity, json: [
            "convoId": setup.convo, "msgId": msgId, "epoch": epoch ?? (try setup.flow.epoch(user, setup.convo) ?? 0),
            "hash": hash, "size": size,
        ])
    }

    func register(_ user: MLSTestUser, _ provider: [String: Any]) throws {
        let reply = try service.call("blue.catbird.mls.registerStorage", as: user.identity, json: ["provider": provider])
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
    }

    func test_thinSend_returnsTheOtherMembers_withTheirStorage_andGetMessagesShowsHashAndSize() throws {
        let setup = try makeGroup()
        try register(setup.bob, ["type": "firestore", "config": ["project": "bob-mls"]])
        try register(setup.alice, ["type": "cloudkit"])
        let bytes = try ciphertext(setup, from: setup.alice, "stored in CloudKit")
        let digest = hex(HashAlgorithm.sha256.hash(bytes))
        let before = try setup.flow.lastSeq(setup.alice, setup.convo)
        let msgId = MessageID.next()

        let reply = try sendThin(setup, as: setup.alice, msgId: msgId, hash: digest, size: bytes.count)
        XCTAssertEqual(reply.status, 200, "\(reply.json)")
        XCTAssertEqual(reply.json["messageId"] as? String, msgId)
        XCTAssertEqual(reply.json["seq"] as? Int, before + 1)
        XCTAssertEqual(reply.json["serverTime"] as? String, reply.json["receivedAt"] as? String)
        XCTAssertNotNil(Timestamp.parse(try XCTUnwrap(reply.json["serverTime"] as? String)))

        // The fan-out list is every current member but the sender, by DID, with its storage.
        let convo = try service.call("blue.catbird.mls.getConvo", as: setup.alice.identity, query: [("convoId", setup.convo)]).json
        let others = (convo["members"] as? [[String: Any]] ?? []).compactMap { $0["did"] as? String }
            .filter { $0 != setup.alice.did }.sorted()
        let recipients = try XCTUnwrap(reply.json["recipients"] as? [[String: Any]])
        XCTAssertEqual(recipients.compactMap { $0["did"] as? String }, others)
        XCTAssertEqual(Set(others), [setup.bob.did, setup.carol.did])
        let byDID = Dictionary(uniqueKeysWithValues: recipients.map { ($0["did"] as? String ?? "", $0) })
        XCTAssertEqual(byDID[setup.bob.did]?["storage"] as? NSDictionary,
                       ["type": "firestore", "config": ["project": "bob-mls"]] as NSDictionary)
        XCTAssertNil(byDID[setup.carol.did]?["storage"], "carol registered no storage")

        // Readers see the metadata only; the bytes they fetch elsewhere match it and decrypt.
        let page = try service.call("blue.catbird.mls.getMessages", as: setup.bob.identity,
                                    query: [("convoId", setup.convo), ("sinceSeq", String(before))])
        let messages = try XCTUnwrap(page.json["messages"] as? [[String: Any]])
        XCTAssertEqual(messages.count, 1)
        let view = try XCTUnwrap(messages.first)
        XCTAssertNil(view["ciphertext"])
        XCTAssertEqual(view["contentHash"] as? String, digest)
        XCTAssertEqual(view["size"] as? Int, bytes.count)
        XCTAssertEqual(view["messageType"] as? String, "app")
        XCTAssertEqual(view["sender"] as? String, setup.alice.did)
        XCTAssertEqual(hex(HashAlgorithm.sha256.hash(bytes)), view["contentHash"] as? String)
        var bobGroup = try XCTUnwrap(setup.bob.groups[setup.convo])
        let (plaintext, _) = try bobGroup.decrypt(try MLSMessage(decoding: bytes))
        XCTAssertEqual(String(decoding: plaintext, as: UTF8.self), "stored in CloudKit")

        // A repeated msgId answers with the first seq; an ordinary message carries no thin fields.
        let repeated = try sendThin(setup, as: setup.alice, msgId: msgId, hash: digest, size: bytes.count)
        XCTAssertEqual(repeated.json["seq"] as? Int, before + 1)
        let ordinary = try setup.flow.send(setup.bob, setup.convo, "ordinary")
        XCTAssertEqual(ordinary.status, 200, "\(ordinary.json)")
        XCTAssertNil(ordinary.json["recipients"])
        XCTAssertNil(ordinary.json["serverTime"])
        let stored = try service.call("blue.catbird.mls.getMessages", as: setup.carol.identity,
                                      query: [("convoId", setup.convo), ("sinceSeq", String(before + 1))])
        let last = try XCTUnwrap((stored.json["messages"] as? [[String: Any]])?.first)
        XCTAssertNotNil(last["ciphertext"])
        XCTAssertNil(last["contentHash"])
        XCTAssertNil(last["size"])
    }

    func test_nonMember_unknownConvo_andStaleEpoch_areRefused() throws {
        let setup = try makeGroup()
        let digest = hex(HashAlgorithm.sha256.hash([1, 2, 3]))
        let outsider = setup.flow.user()
        let before = try setup.flow.lastSeq(setup.alice, setup.convo)

        let notMember = try sendThin(setup, as: outsider, epoch: 1, hash: digest, size: 3)
        XCTAssertEqual(notMember.status, 403)
        XCTAssertEqual(notMember.error, "NotMember")
        let unknown = try service.call("blue.catbird.mls.sendMessage", as: setup.alice.identity, json: [
            "convoId": "00ff00ff", "msgId": MessageID.next(), "epoch": 1, "hash": digest, "size": 3,
        ])
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(unknown.error, "ConvoNotFound")

        // Alice commits: epoch 1 is now stale for a thin message as for any other.
        let output = try XCTUnwrap(setup.alice.groups[setup.convo]).update()
        let commit = try service.call("blue.catbird.mls.commitGroupChange", as: setup.alice.identity, json: [
            "convoId": setup.convo, "commit": ["$bytes": Base64Test.encode(output.commit.encoded())],
        ])
        XCTAssertEqual(commit.status, 200, "\(commit.json)")
        let stale = try sendThin(setup, as: setup.bob, epoch: 1, hash: digest, size: 3)
        XCTAssertEqual(stale.status, 409)
        XCTAssertEqual(stale.error, "EpochMismatch")
        let future = try sendThin(setup, as: setup.bob, epoch: 3, hash: digest, size: 3)
        XCTAssertEqual(future.status, 409)
        XCTAssertEqual(try setup.flow.lastSeq(setup.alice, setup.convo), before + 1, "only the commit was stored")
        let current = try sendThin(setup, as: setup.bob, epoch: 2, hash: digest, size: 3)
        XCTAssertEqual(current.status, 200, "\(current.json)")
        XCTAssertEqual(current.json["epoch"] as? Int, 2)
    }

    func test_malformedThinInput_is400_andStoresNothing() throws {
        let setup = try makeGroup()
        let digest = hex(HashAlgorithm.sha256.hash([7]))
        let before = try setup.flow.lastSeq(setup.alice, setup.convo)
        let base: [String: Any] = ["convoId": setup.convo, "epoch": 1]
        let cases: [(String, [String: Any], Int)] = [
            ("both", ["ciphertext": ["$bytes": "AQID"], "hash": digest, "size": 3], 400),
            ("neither", [:], 400),
            ("hash without size", ["hash": digest], 400),
            ("size without hash", ["size": 3], 400),
            ("ciphertext and size", ["ciphertext": ["$bytes": "AQID"], "size": 3], 400),
            ("short hash", ["hash": String(digest.dropLast()), "size": 3], 400),
            ("long hash", ["hash": digest + "0", "size": 3], 400),
            ("66-digit hash", ["hash": digest + "00", "size": 3], 400),
            ("non-hex hash", ["hash": "zz" + digest.dropFirst(2), "size": 3], 400),
            ("empty hash", ["hash": "", "size": 3], 400),
            ("hash as bytes", ["hash": ["$bytes": "AQID"], "size": 3], 400),
            ("zero size", ["hash": digest, "size": 0], 400),
            ("negative size", ["hash": digest, "size": -5], 400),
            ("size as string", ["hash": digest, "size": "3"], 400),
            ("oversized", ["hash": digest, "size": (10 << 20) + 1], 413),
        ]
        for (name, fields, status) in cases {
            let body = base.merging(fields) { _, new in new }.merging(["msgId": MessageID.next()]) { _, new in new }
            let reply = try service.call("blue.catbird.mls.sendMessage", as: setup.alice.identity, json: body)
            XCTAssertEqual(reply.status, status, "\(name): \(reply.json)")
            XCTAssertEqual(reply.error, status == 413 ? "MessageTooLarge" : "InvalidRequest", name)
        }
        XCTAssertEqual(try setup.flow.lastSeq(setup.alice, setup.convo), before)
        // Uppercase hex is the same digest; the largest allowed size is accepted.
        let upper = try sendThin(setup, as: setup.alice, epoch: 1, hash: digest.uppercased(), size: 10 << 20)
        XCTAssertEqual(upper.status, 200, "\(upper.json)")
        let read = try service.call("blue.catbird.mls.getMessages", as: setup.bob.identity,
                                    query: [("convoId", setup.convo), ("sinceSeq", String(before))])
        XCTAssertEqual((read.json["messages"] as? [[String: Any]])?.first?["contentHash"] as? String, digest)
    }

    func test_thinMaximum_comesFromTheEnvironment() throws {
        let harness = try ServiceHarness(environment: ["THIN_MESSAGE_MAX_BYTES": "1000"])
        defer { harness.shutdown() }
        let flow = ChatFlow(service: harness)
        let alice = flow.user()
        let convo = try flow.createConvo(alice, with: [])
        let digest = hex(HashAlgorithm.sha256.hash([9]))
        func send(_ size: Int) throws -> ServiceHarness.Reply {
            try harness.call("blue.catbird.mls.sendMessage", as: alice.identity, json: [
                "convoId": convo, "msgId": MessageID.next(), "epoch": try flow.epoch(alice, convo) ?? 0,
                "hash": digest, "size": size,
            ])
        }
        let atLimit = try send(1000)
        XCTAssertEqual(atLimit.status, 200, "\(atLimit.json)")
        XCTAssertEqual(atLimit.json["recipients"] as? [NSDictionary], [], "a lone member has no one to fan out to")
        let over = try send(1001)
        XCTAssertEqual(over.status, 413)
        XCTAssertEqual(over.error, "MessageTooLarge")
    }
}
