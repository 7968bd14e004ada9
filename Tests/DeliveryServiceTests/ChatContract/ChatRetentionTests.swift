@testable import DeliveryService
import ChatProtocol
import DeliveryStore
import Foundation
import MLSClient
import TestSupport
import XCTest

/// Chat retention (docs/chat.md, "Retention"): the job purges device events past
/// CHAT_EVENT_TTL_HOURS, completed operations and expired sessions and tickets past
/// MESSAGE_TTL_DAYS, keeps entries, and moves the event
/// horizon, below which a stream is refused with CursorExpired. Rows are backdated with SQL and the
/// job runs on its own (the service's is off).
final class ChatRetentionTests: ChatContractTestCase {
    override class var environment: [String: String] { ["MESSAGE_TTL_DAYS": "0"] }

    func testOldEventsAndOperationsArePurged_EntriesKept_AndAStaleCursorIsRefused() throws {
        let (alice, bob, _, conversation) = try pairWithIdentity()
        // bob's inventory and ticket, taken before the messages: their cursor will lie below the horizon.
        let stale = try bob.inventory()
        let staleTicket = try bob.ticket(stale)
        for text in ["one", "two", "three"] { try alice.send(conversation, text: text) }
        // alice's session and ticket expire long before the purge.
        _ = try alice.ticket(try alice.inventory())
        let database = try service.app.database
        func count(_ sql: String) throws -> Int { try database.query(sql)[0].int(0) }
        func entries() throws -> Int {
            try database.query("SELECT count(*) FROM chat_entries WHERE conversation_id = $1", [conversation])[0].int(0)
        }
        let oldEvents = try count("SELECT count(*) FROM chat_device_events")
        let oldOperations = try count("SELECT count(*) FROM chat_operations")
        let entryCount = try entries()
        let newest = try count("SELECT max(position) FROM chat_device_events")
        XCTAssertGreaterThan(oldEvents, 0)
        // Events two days old: past CHAT_EVENT_TTL_HOURS (24), well within MESSAGE_TTL_DAYS (30).
        try database.execute("UPDATE chat_device_events SET created_at = created_at - interval '2 days'")
        try database.execute("UPDATE chat_operations SET created_at = created_at - interval '40 days'")
        let aliceDID = alice.device.did.rawValue
        try database.execute("UPDATE chat_inventory_sessions SET expires_at = expires_at - interval '40 days' WHERE user_did = $1", [aliceDID])
        try database.execute("UPDATE chat_tickets SET expires_at = expires_at - interval '40 days' WHERE user_did = $1", [aliceDID])
        let oldSessions = try count("SELECT count(*) FROM chat_inventory_sessions WHERE expires_at < now()")
        XCTAssertGreaterThan(oldSessions, 0)

        var settings = RetentionJob.Settings()
        settings.ttlDays = 30
        settings.batchSize = 5
        let store = DeliveryStore(database: database)
        func job(eventHours: Double) throws -> RetentionJob {
            RetentionJob(store: store, settings: settings, log: try service.app.log,
                         extraSteps: ChatTableRetention.all(store: store, eventLifetime: eventHours * 3600))
        }
        // Kept three days, the events stay; the operations, 40 days old, go, and so do the sessions
        // and tickets that expired 40 days ago.
        let first = try job(eventHours: 72).runOnce()
        XCTAssertEqual(first.deleted["chat_device_events"], 0)
        XCTAssertEqual(first.deleted["chat_operations"], oldOperations)
        XCTAssertEqual(first.deleted["chat_inventory_sessions"], oldSessions)
        XCTAssertEqual(first.deleted["chat_tickets"], 1)
        XCTAssertEqual(try count("SELECT position::int FROM chat_event_horizon"), 0, "nothing purged: the horizon has not moved")
        let job = try job(eventHours: 24)
        let report = job.runOnce()
        XCTAssertEqual(report.deleted["chat_device_events"], oldEvents)
        XCTAssertEqual(try count("SELECT count(*) FROM chat_device_events"), 0)
        XCTAssertEqual(try count("SELECT position::int FROM chat_event_horizon"), newest, "the horizon is the newest position purged")
        XCTAssertEqual(try entries(), entryCount,
                       "entries are the conversation's log: kept")
        XCTAssertEqual(job.runOnce().deleted["chat_device_events"], 0)

        // The stale cursor: its ticket is still unused and unexpired, and the upgrade refuses it.
        let baseURL = try service.baseURL
        XCTAssertThrowsError(try ChatEventStream(baseURL: baseURL, ticket: staleTicket, cursor: stale.cursor)) { error in
            guard case ChatEventStream.StreamError.refused(let status, let body) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(status, 400)
            XCTAssertTrue(body.contains("CursorExpired"), body)
        }
        // A fresh inventory subscribes from the head and hears what comes next; bob still reads every message.
        let stream = try bob.subscribe(try bob.inventory())
        try alice.send(conversation, text: "four")
        XCTAssertEqual(try stream.next().payload.type, ChatSchema.typePrefix + "messageAvailableEvent")
        XCTAssertEqual(try bob.read(conversation).map(\.text), ["one", "two", "three", "four"])
    }
}
