import Basics
import DeliveryStore
import Foundation
import Store
import Synchronization
import XCTest

/// The push outbox (migrations/0020_push.sql, docs/push.md): rows written in the message's own
/// transaction, one per device and conversation, claimed by one worker at a time, settled by
/// revision.
final class PushOutboxTests: StoreTestCase {
    override var configuration: DeliveryStore.Configuration { .init(pushEnabled: true) }

    func register(_ name: String, _ device: String, token: String? = nil) throws {
        try store.registerPushDevice(PushDeviceRegistration(
            did: user(name), deviceID: device, address: PushAddress(platform: .android, token: token ?? "fcm:\(name):\(device)")),
            maxDevices: 10)
    }

    func outbox() throws -> [(did: String, device: String, convo: String, kind: String, seq: Int64?, revision: Int64)] {
        try fixture.database.query("SELECT did, device_id, convo_id, kind, seq, revision FROM push_outbox ORDER BY did, device_id")
            .map { (try $0.string("did"), try $0.string("device_id"), try $0.string("convo_id"), try $0.string("kind"),
                    try $0.optionalInt64("seq"), try $0.int64("revision")) }
    }

    func testAMessage_QueuesOnePushPerOtherMembersDevice_InItsTransaction() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob"), leaf(2, "carol")])
        try register("alice", "phone")
        try register("bob", "phone")
        try register("bob", "tablet")
        let batch = store.appendMessages([BatchedMessage(message(convo, "m1", sender: "alice"))])
        let stored = try batch[0].result.get()
        let rows = try outbox()
        XCTAssertEqual(rows.map(\.device), ["phone", "tablet"], "Bob's two devices, not Alice's, not Carol's (none registered)")
        XCTAssertTrue(rows.allSatisfy { $0.did == did("bob") && $0.kind == "mlsMessage" && $0.seq == stored.seq })

        // A message that is refused (not a member) queues nothing.
        _ = store.appendMessages([BatchedMessage(message(convo, "m2", sender: "dave"))])
        XCTAssertEqual(try outbox().count, 2)
        // The one-message path queues as the batch does.
        let single = try store.transaction { try $0.appendMessage(message(convo, "m3", sender: "bob")) }
        XCTAssertEqual(try outbox().filter { $0.did == did("alice") }.map(\.seq), [single.seq])
    }

    func testLaterMessages_ReplaceThePendingPush_OnePerDeviceAndConversation() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        let other = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        try register("bob", "phone")
        // Two messages in one batch, then one more: still one row, the newest message, three revisions.
        let batch = store.appendMessages([BatchedMessage(message(convo, "a")), BatchedMessage(message(convo, "b"))])
        let last = try store.appendMessages([BatchedMessage(message(convo, "c"))])[0].result.get()
        _ = store.appendMessages([BatchedMessage(message(other, "x"))])
        XCTAssertEqual(batch.count, 2)
        let rows = try outbox()
        XCTAssertEqual(rows.count, 2)
        let row = try XCTUnwrap(rows.first { $0.convo == convo })
        XCTAssertEqual(row.seq, last.seq)
        XCTAssertEqual(row.revision, 2)
    }

    func testCommitsAndWelcomes_QueueTheirOwnKinds() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        try register("alice", "phone")
        try register("bob", "phone")
        try register("carol", "phone")
        let application = commit(convo, from: 0, members: [leaf(0, "alice"), leaf(1, "bob"), leaf(2, "carol")],
                                 welcomes: [WelcomeDelivery(recipientDID: did("carol"), welcome: [9, 9, 9])])
        _ = try store.transaction { try $0.applyCommit(application) }
        let rows = try outbox()
        // Bob gets the commit; Carol, whom it adds, her Welcome; Alice, who committed, nothing.
        XCTAssertEqual(rows.map(\.did), [did("bob"), did("carol")])
        XCTAssertEqual(rows.map(\.kind), ["mlsCommit", "mlsWelcome"])
        let pushes = try store.claimPushes(node: "n", limit: 10, leaseSeconds: 30).pushes
        let contents = try store.mlsPushContents(pushes, maxBytes: 4096)
        let welcome = try XCTUnwrap(pushes.first { $0.event.kind == "mlsWelcome" })
        XCTAssertEqual(contents[welcome.id], [9, 9, 9])
        let commitPush = try XCTUnwrap(pushes.first { $0.event.kind == "mlsCommit" })
        XCTAssertEqual(contents[commitPush.id], Array("commit-0".utf8))
        XCTAssertEqual(commitPush.event.epoch, 0)
    }

    func testARolledBackMessage_LeavesNoPush() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        try register("bob", "phone")
        struct Abort: Error {}
        XCTAssertThrowsError(try store.transaction { transaction in
            _ = try transaction.appendMessage(message(convo, "doomed"))
            throw Abort()
        })
        XCTAssertEqual(try outbox().count, 0)
    }

    func testClaims_AreExclusive_AndSettleByRevision() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        for device in ["a", "b", "c"] { try register("bob", device) }
        _ = store.appendMessages([BatchedMessage(message(convo, "m1"))])
        let first = try store.claimPushes(node: "one", limit: 2, leaseSeconds: 30)
        let second = try store.claimPushes(node: "two", limit: 10, leaseSeconds: 30)
        XCTAssertEqual(first.pushes.count, 2)
        XCTAssertEqual(second.pushes.count, 1, "a leased row is not claimed again")
        XCTAssertTrue(Set(first.pushes.map(\.id)).isDisjoint(with: second.pushes.map(\.id)))
        XCTAssertEqual(try store.claimPushes(node: "three", limit: 10, leaseSeconds: 30).pushes.count, 0)

        // A newer message replaces one claimed row's event: settling the old revision keeps the row, due now.
        let replaced = first.pushes[0]
        _ = store.appendMessages([BatchedMessage(message(convo, "m2"))])
        let settled = try store.settlePushes(first.pushes.map { PushSettlement(id: $0.id, revision: $0.revision, verdict: .delivered) },
                                             node: "one")
        XCTAssertEqual(settled.removed, 0, "every claimed row was replaced by m2 (all three devices)")
        XCTAssertEqual(settled.kept, 2)
        // Another node cannot settle rows it does not hold.
        XCTAssertEqual(try store.settlePushes([PushSettlement(id: second.pushes[0].id, revision: second.pushes[0].revision,
                                                              verdict: .delivered)], node: "one").removed, 0)
        let again = try store.claimPushes(node: "one", limit: 10, leaseSeconds: 30).pushes
        XCTAssertTrue(again.contains { $0.id == replaced.id && $0.revision == replaced.revision + 1 && $0.attempts == 1 })
        XCTAssertEqual(try store.settlePushes(again.map { PushSettlement(id: $0.id, revision: $0.revision, verdict: .delivered) },
                                              node: "one").removed, again.count)
    }

    func testARetry_IsDueAfterItsDelay_AndALapsedLeaseIsClaimedByAnotherNode() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        try register("bob", "phone")
        try register("bob", "watch")
        _ = store.appendMessages([BatchedMessage(message(convo, "m1"))])
        let pushes = try store.claimPushes(node: "one", limit: 10, leaseSeconds: 0.2).pushes
        XCTAssertEqual(pushes.count, 2)
        try store.settlePushes([PushSettlement(id: pushes[0].id, revision: pushes[0].revision, verdict: .retry, delay: 60)], node: "one")
        Thread.sleep(forTimeInterval: 0.4)
        // The retried row waits its minute; the other's lease lapsed (its node died): node two takes it.
        let taken = try store.claimPushes(node: "two", limit: 10, leaseSeconds: 30).pushes
        XCTAssertEqual(taken.map(\.id), [pushes[1].id])
        XCTAssertEqual(taken[0].attempts, 2)
        // The dead node's late settlement changes nothing.
        XCTAssertEqual(try store.settlePushes([PushSettlement(id: pushes[1].id, revision: pushes[1].revision, verdict: .delivered)],
                                              node: "one").removed, 0)
    }

    func testALiveDevice_IsSkipped_ForTheConversationsItCovers() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        let other = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        try register("bob", "phone")
        try register("bob", "desktop")
        try store.updatePresence([.covers(follower: 1, did: did("bob"), deviceID: "desktop", convoID: convo)], node: "n1", lifetime: 60)
        _ = store.appendMessages([BatchedMessage(message(convo, "m1")), BatchedMessage(message(other, "m2"))])
        let claim = try store.claimPushes(node: "n1", limit: 10, leaseSeconds: 30)
        XCTAssertEqual(claim.skippedLive, 1)
        XCTAssertEqual(Set(claim.pushes.map { "\($0.target!.deviceID) \($0.event.convoID == convo)" }),
                       ["phone true", "phone false", "desktop false"])
        // All conversations ('*'), and a lapsed row counting for nothing.
        try store.updatePresence([.ends(follower: 1), .covers(follower: 2, did: did("bob"), deviceID: "phone", convoID: "*")],
                                 node: "n1", lifetime: 60)
        try store.updatePresence([.covers(follower: 3, did: did("bob"), deviceID: "desktop", convoID: "*")], node: "n2", lifetime: 0.1)
        Thread.sleep(forTimeInterval: 0.3)
        _ = store.appendMessages([BatchedMessage(message(convo, "m3"))])
        try store.settlePushes(claim.pushes.map { PushSettlement(id: $0.id, revision: $0.revision, verdict: .delivered) }, node: "n1")
        let next = try store.claimPushes(node: "n1", limit: 10, leaseSeconds: 30)
        XCTAssertEqual(next.pushes.map { $0.target!.deviceID }, ["desktop"])
        try store.renewPresence(node: "n1", lifetime: 60)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM push_presence"), 1, "the lapsed row of n2 is gone")
        try store.clearPresence(node: "n1")
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM push_presence"), 0)
    }

    func testUnregisteringAndInvalidTokens_TakeThePendingPushes() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        try register("bob", "phone", token: "t1")
        try register("bob", "tablet", token: "t2")
        _ = store.appendMessages([BatchedMessage(message(convo, "m1"))])
        XCTAssertTrue(try store.unregisterPushDevice(did: user("bob"), deviceID: "phone"))
        XCTAssertFalse(try store.removeInvalidPushToken(did: did("bob"), deviceID: "tablet", token: "stale"),
                       "a token the device no longer has")
        XCTAssertEqual(try outbox().map(\.device), ["tablet"])
        XCTAssertTrue(try store.removeInvalidPushToken(did: did("bob"), deviceID: "tablet", token: "t2"))
        XCTAssertEqual(try outbox().count, 0)
        XCTAssertEqual(try store.pushOutboxStats().depth, 0)
    }

    func testTheDeviceCap_HoldsUnderConcurrentRegistrations() throws {
        let store = self.store
        let bob = user("bob")
        let refused = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 12) { index in
            do {
                try store.registerPushDevice(PushDeviceRegistration(did: bob, deviceID: "d\(index)",
                                                                    address: PushAddress(platform: .android, token: "tok\(index)")),
                                             maxDevices: 5)
            } catch DeliveryStoreError.tooManyPushDevices {
                refused.add(1, ordering: .relaxed)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(refused.load(ordering: .relaxed), 7)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM push_devices"), 5)
    }
}
