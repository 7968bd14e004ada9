import DeliveryService
import Foundation
import HTTP
import Store
import XCTest

/// PostgreSQL itself crashes (immediate shutdown: no checkpoint, the WAL replayed at restart)
/// while the real server executable is under sendMessage and commit load, on a private cluster
/// with fsync on: every message the server acknowledged is there after the restart, seq dense,
/// commits consistent; and the same server process serves again once the database is back.
extension DurabilityTests {
    func test_postgresCrashDuringSendLoad_thenRecovery_keepsEveryAcknowledgedMessage() throws {
        let cluster = try PrivateCluster.start()
        defer { cluster.remove() }
        XCTAssertEqual(try cluster.fsync, "on")
        let setup = try makeSetup(server: cluster.url)
        defer { setup.harness.shutdown() }
        let server = try DurabilityServerProcess(databaseURL: setup.harness.databaseURL, plcURL: setup.harness.plc.baseURL)
        defer {
            server.terminate()
            _ = server.waitForExit()
        }
        var crashed = true
        load(setup, server: server, threshold: 150) {
            do { try cluster.crash() } catch { crashed = false }
        }
        XCTAssertTrue(crashed, "pg.sh crash failed")
        try cluster.restart()
        try verifyDatabase(setup)

        // The server outlived its database: its pooled connections were cut, and it reconnects.
        let sender = setup.senders[0]
        let before = sender.acknowledged.count
        sender.run(baseURL: server.baseURL, limit: 1, successes: Counter())
        XCTAssertEqual(sender.acknowledged.count, before + 1, "\(server.log.suffix(5))")
        try verifyDatabase(setup)
    }
}
