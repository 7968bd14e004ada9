import Foundation
import XCTest
@testable import Store

final class PGListenerTests: DatabaseTestCase {
    private func waitForNotifications(_ listener: PGListener, count: Int) throws -> [PGNotification] {
        var received: [PGNotification] = []
        for _ in 0..<100 where received.count < count {
            received += try listener.wait(timeout: 0.1)
        }
        return received
    }

    func test_notificationsArriveOnListenedChannelsOnly() throws {
        let listener = try PGListener(url: fixture.url)
        defer { listener.close() }
        let channel = "convo:\(UUID().uuidString)"  // needs quoting as an identifier
        try listener.listen(channel)
        XCTAssertEqual(try listener.wait(timeout: 0), [])
        try db.execute("SELECT pg_notify($1, $2)", ["other-channel", "ignored"])
        try db.execute("SELECT pg_notify($1, $2)", [channel, "epoch=1"])
        try db.execute("SELECT pg_notify($1, $2)", [channel, "epoch=2"])
        let received = try waitForNotifications(listener, count: 2)
        XCTAssertEqual(received.map(\.payload), ["epoch=1", "epoch=2"])
        XCTAssertEqual(Set(received.map(\.channel)), [channel])

        try listener.unlisten(channel)
        try db.execute("SELECT pg_notify($1, $2)", [channel, "after unlisten"])
        XCTAssertEqual(try listener.wait(timeout: 0.05), [])
    }

    func test_lostConnection_isReportedThenRestoredWithItsChannels() throws {
        let counters = ConnectionCounters()
        let listener = try PGListener(url: fixture.url, counters: counters)
        defer { listener.close() }
        try listener.listen("fanout")
        let pid = try XCTUnwrap(listener.backendProcessID)
        try fixture.terminate([pid])
        var outcome: Result<[PGNotification], StoreError> = .success([])
        for _ in 0..<50 {
            outcome = Result { () throws(StoreError) in try listener.wait(timeout: 0.1) }
            if case .failure = outcome { break }
        }
        guard case .failure(.unavailable) = outcome else { return XCTFail("expected unavailable, got \(outcome)") }
        XCTAssertEqual(try listener.wait(timeout: 0), [], "reconnects")
        XCTAssertNotEqual(listener.backendProcessID, pid)
        XCTAssertEqual([counters.opened, counters.lost, counters.reconnects], [2, 1, 1])
        try db.execute("SELECT pg_notify('fanout', 'back')")
        XCTAssertEqual(try waitForNotifications(listener, count: 1).map(\.payload), ["back"])
    }
}
