import DeliveryStore
import Foundation
import Store
import XCTest

final class RetentionTests: StoreTestCase {
    let day: TimeInterval = 86_400

    /// Moves rows `days` into the past.
    func backdate(_ table: String, days: Int, where condition: String) throws {
        try fixture.database.execute("UPDATE \(table) SET created_at = created_at - \(days) * interval '1 day' WHERE \(condition)")
    }

    func test_expiredMessages_goInBoundedBatches_andSeqsAreNeverReused() throws {
        let convo = try makeConvo([leaf(0, "alice"), leaf(1, "bob")])
        for index in 0..<30 { _ = try store.appendMessage(message(convo, "m\(index)", sender: index % 2 == 0 ? "alice" : "bob")) }
        try backdate("messages", days: 40, where: "seq <= 25")
        let events = try store.events(convoID: convo, limit: 1000).count
        let cutoff = Date().addingTimeInterval(-30 * day)

        XCTAssertEqual(try store.purgeExpired(.messages, createdBefore: cutoff, limit: 10), 10)
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages"), 20)
        XCTAssertEqual(try store.purgeExpired(.messages, createdBefore: cutoff, limit: 10), 10)
        XCTAssertEqual(try store.purgeExpired(.messages, createdBefore: cutoff, limit: 10), 5)
        XCTAssertEqual(try store.purgeExpired(.messages, createdBefore: cutoff, limit: 10), 0)

        // An old sinceSeq finds what is left; the counter goes on from where it was.
        let page = try store.messages(convoID: convo, MessageQuery(sinceSeq: 3, limit: 100))
        XCTAssertEqual(page.messages.map(\.seq), Array(26...30))
        XCTAssertEqual(page.lastSeq, 30)
        XCTAssertEqual(try store.appendMessage(message(convo, "after")).seq, 31)
        // A message is its own event (migration 0015): the purged ones' events went with them.
        XCTAssertEqual(try store.events(convoID: convo, limit: 1000).count, events - 25 + 1)
    }

    func test_events_areTrimmedByAge_acrossConversations() throws {
        let first = try makeConvo([leaf(0, "alice")]), second = try makeConvo([leaf(0, "bob")], creator: "bob")
        for index in 0..<4 {
            _ = try store.appendMessage(message(first, "a\(index)"))
            _ = try store.appendMessage(message(second, "b\(index)", sender: "bob"))
        }
        // Each log: the creator's join (1), then the four messages, each its own event (2…5).
        XCTAssertEqual(try store.events(convoID: first).map(\.seq), [1, 2, 3, 4, 5])
        try backdate("events", days: 31, where: "event_seq <= 3")
        let cutoff = Date().addingTimeInterval(-30 * day)
        XCTAssertEqual(try store.purgeExpired(.events, createdBefore: cutoff, limit: 100), 2, "the two joins")
        XCTAssertEqual(try store.events(convoID: first).map(\.seq), [2, 3, 4, 5], "messages are a table of their own")
        try backdate("messages", days: 31, where: "event_seq <= 3")
        XCTAssertEqual(try store.purgeExpired(.messages, createdBefore: cutoff, limit: 100), 4)
        XCTAssertEqual(try store.events(convoID: first).first?.seq, 4)
        XCTAssertEqual(try store.events(convoID: second).first?.seq, 4)
        // New events keep counting from the conversation's counter.
        _ = try store.appendMessage(message(first, "later"))
        XCTAssertEqual(try store.events(convoID: first).last?.seq, 6)
    }

    func test_commits_keepTheLastEpochs_andRecentOnes() throws {
        let members = [leaf(0, "alice"), leaf(1, "bob")]
        let convo = try makeConvo(members)
        for epoch in Int64(0)..<6 { _ = try store.applyCommit(commit(convo, from: epoch, members: members)) }
        XCTAssertEqual(try store.epoch(convoID: convo), 6)
        try backdate("commits", days: 60, where: "epoch <= 4")
        let cutoff = Date().addingTimeInterval(-30 * day)

        // Commits of epochs 0…5 exist; keeping the last 2 leaves 4 and 5 (5 is recent anyway).
        XCTAssertEqual(try store.purgeExpired(.commits, createdBefore: cutoff, keepCommitEpochs: 2, limit: 3), 3)
        XCTAssertEqual(try store.purgeExpired(.commits, createdBefore: cutoff, keepCommitEpochs: 2, limit: 3), 1)
        XCTAssertEqual(try store.purgeExpired(.commits, createdBefore: cutoff, keepCommitEpochs: 2, limit: 3), 0)
        XCTAssertEqual(try store.commits(convoID: convo, fromEpoch: 0).map(\.epoch), [4, 5])
        // With none kept, the old epoch-4 commit goes; the recent epoch-5 one stays.
        XCTAssertEqual(try store.purgeExpired(.commits, createdBefore: cutoff, limit: 10), 1)
        XCTAssertEqual(try store.commits(convoID: convo, fromEpoch: 0).map(\.epoch), [5])
        // The group goes on: the next commit is still one per epoch.
        _ = try store.applyCommit(commit(convo, from: 6, members: members))
        XCTAssertEqual(try store.epoch(convoID: convo), 7)
        XCTAssertEqual(deliveryError { try store.applyCommit(commit(convo, from: 6, members: members)) },
                       .commitConflict(current: 7))
    }

    func test_nothingExpired_deletesNothing_andBadArgumentsAreRefused() throws {
        let convo = try makeConvo([leaf(0, "alice")])
        _ = try store.appendMessage(message(convo, "fresh"))
        for table in RetainedTable.allCases {
            XCTAssertEqual(try store.purgeExpired(table, createdBefore: Date().addingTimeInterval(-day), limit: 10), 0)
        }
        XCTAssertEqual(try fixture.count("SELECT count(*) FROM messages"), 1)
        XCTAssertEqual(deliveryError { try store.purgeExpired(.messages, createdBefore: Date(), limit: 0) },
                       .invalidArgument("limit ≥ 1 and keepCommitEpochs ≥ 0"))
        XCTAssertEqual(deliveryError { try store.purgeExpired(.commits, createdBefore: Date(), keepCommitEpochs: -1, limit: 5) },
                       .invalidArgument("limit ≥ 1 and keepCommitEpochs ≥ 0"))
    }
}
