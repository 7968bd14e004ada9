@testable import DeliveryService
import DeliveryStore
import Foundation
import MLS
import Primitives
import TestSupport
import XCTest

/// The retention purge (MESSAGE_TTL_DAYS) against the real service and PostgreSQL: rows are
/// backdated with SQL and the job runs on a test clock.
final class MessageRetentionTests: XCTestCase {
    func test_purge_removesExpiredRows_inBatches_andTheConversationGoesOn() throws {
        // The service's own job is off, so only the passes below delete anything.
        let harness = try ServiceHarness(environment: ["MESSAGE_TTL_DAYS": "0"])
        defer { harness.shutdown() }
        let flow = ChatFlow(service: harness)
        let alice = flow.user(), bob = flow.user()
        try flow.publishKeyPackage(bob)
        let convo = try flow.createConvo(alice, with: [bob])
        try flow.join(bob, convo)
        for text in ["one", "two", "three"] { XCTAssertEqual(try flow.send(alice, convo, text).status, 200) }
        let update = try XCTUnwrap(alice.groups[convo]).update()
        XCTAssertEqual(try harness.call("blue.catbird.mls.commitGroupChange", as: alice.identity, json: [
            "convoId": convo, "commit": ["$bytes": Base64Test.encode(update.commit.encoded())],
        ]).status, 200)
        alice.groups[convo] = update.group
        let oldLast = try flow.lastSeq(alice, convo)
        XCTAssertEqual(oldLast, 5, "the add commit, three messages, the update commit")

        let database = harness.app.database
        for table in ["messages", "events", "commits"] {
            try database.execute("UPDATE \(table) SET created_at = created_at - interval '40 days'")
        }
        let oldEvents = try database.query("SELECT count(*) FROM events")[0].int(0)
        XCTAssertEqual(try flow.send(alice, convo, "fresh").status, 200)
        let thin = try harness.call("blue.catbird.mls.sendMessage", as: bob.identity, json: [
            "convoId": convo, "msgId": MessageID.next(), "epoch": 2,
            "hash": String(repeating: "ab", count: 32), "size": 100,
        ])
        XCTAssertEqual(thin.status, 200, "\(thin.json)")

        let clock = TestClock(Date().addingTimeInterval(-20 * 86_400))
        var settings = RetentionJob.Settings()
        settings.ttlDays = 30
        settings.keepCommitEpochs = 1
        settings.batchSize = 2
        let job = RetentionJob(store: DeliveryStore(database: database), settings: settings, log: harness.app.log,
                               now: clock.closure)
        // Twenty days ago, the backdated rows were only twenty days old.
        XCTAssertEqual(job.runOnce().deleted, ["messages": 0, "events": 0, "commits": 0])

        clock.advance(by: 20 * 86_400)
        let report = job.runOnce()
        XCTAssertEqual(report.deleted["messages"], oldLast)
        XCTAssertEqual(report.deleted["events"], oldEvents)
        XCTAssertEqual(report.deleted["commits"], 1, "the epoch-0 commit; the last one (epoch 1) is kept")
        // Batches of two: 5 messages → 3 statements; every step ends on a short batch.
        XCTAssertEqual(report.batches, (oldLast / 2 + 1) + (oldEvents / 2 + 1) + 1)
        XCTAssertEqual(job.runOnce().deleted, ["messages": 0, "events": 0, "commits": 0])

        // What is left: the two recent messages, with their seqs; an old sinceSeq is fine.
        let page = try harness.call("blue.catbird.mls.getMessages", as: bob.identity,
                                    query: [("convoId", convo), ("sinceSeq", "2")]).json
        let messages = page["messages"] as? [[String: Any]] ?? []
        XCTAssertEqual(messages.compactMap { $0["seq"] as? Int }, [oldLast + 1, oldLast + 2])
        XCTAssertEqual(page["lastSeq"] as? Int, oldLast + 2)
        XCTAssertEqual(messages.last?["contentHash"] as? String, String(repeating: "ab", count: 32))
        let commits = try harness.call("blue.catbird.mls.getCommits", as: bob.identity,
                                       query: [("convoId", convo), ("fromEpoch", "0")]).json
        XCTAssertEqual((commits["commits"] as? [[String: Any]])?.compactMap { $0["epoch"] as? Int }, [1])

        // The conversation goes on: seqs continue, never reused; bob still decrypts.
        XCTAssertEqual(try flow.send(alice, convo, "after the purge").json["seq"] as? Int, oldLast + 3)
        bob.readSeq[convo] = oldLast + 2
        var bobGroup = try XCTUnwrap(bob.groups[convo])
        _ = try bobGroup.process(update.commit)
        bob.groups[convo] = bobGroup
        XCTAssertEqual(try flow.sync(bob, convo), ["after the purge"])
    }

    func test_disabledRetention_deletesNothing() throws {
        let fixture = try ServiceHarness(environment: ["MESSAGE_TTL_DAYS": "0"])
        defer { fixture.shutdown() }
        let flow = ChatFlow(service: fixture)
        let alice = flow.user()
        let convo = try flow.createConvo(alice, with: [])
        XCTAssertEqual(try flow.send(alice, convo, "kept").status, 200)
        try fixture.app.database.execute("UPDATE messages SET created_at = created_at - interval '4000 days'")
        var settings = RetentionJob.Settings()
        settings.ttlDays = 0
        let job = RetentionJob(store: DeliveryStore(database: fixture.app.database), settings: settings, log: fixture.app.log)
        XCTAssertEqual(job.runOnce(), RetentionJob.Report())
        XCTAssertEqual(try fixture.app.database.query("SELECT count(*) FROM messages")[0].int(0), 1)
    }
}
