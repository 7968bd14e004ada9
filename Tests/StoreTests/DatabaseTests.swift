import Foundation
import TestSupport
import XCTest
@testable import Store

final class DatabaseTests: DatabaseTestCase {
    func test_invalidConfiguration_isRejectedUpFront() {
        XCTAssertNotNil(storeError { try Database(url: "postgresql://host:notaport/db?bogus_option=1") })
        XCTAssertEqual(storeError { try Database(url: "host=x", poolSize: 0) },
                       .invalidConfiguration("poolSize must be at least 1"))
        guard case .invalidConfiguration = storeError({ try Database(url: "not a = valid 'conninfo") }) else {
            return XCTFail("expected invalidConfiguration")
        }
    }

    func test_connectionDefaults_yieldToTheURLExceptClientEncoding() throws {
        XCTAssertEqual(try db.query("SHOW application_name")[0].string(0), "catbird-mls")
        let base = try TestDatabase.baseURL()
        var pairs = try LibPQConnectionInfo.parse(base)
        pairs += [("application_name", "custom-name"), ("client_encoding", "LATIN1")]
        let custom = try Database(url: LibPQConnectionInfo.keyValueString(pairs), poolSize: 1)
        defer { custom.close() }
        XCTAssertEqual(try custom.query("SHOW application_name")[0].string(0), "custom-name")
        XCTAssertEqual(try custom.query("SHOW client_encoding")[0].string(0), "UTF8")
        XCTAssertEqual(try custom.query("SELECT $1::text AS t", ["ß→✓"])[0].string("t"), "ß→✓")
    }

    /// Every connection notices a peer that vanished without a reset (keepalives, tcp_user_timeout),
    /// and the URL may say otherwise.
    func test_deadPeerDefaults_areInEffect_andYieldToTheURL() throws {
        let options = try db.withConnection { $0.raw.options }
        for (key, value) in ConnectionSettings.deadPeerDefaults { XCTAssertEqual(options[key], value, key) }
        XCTAssertEqual(options["keepalives_idle"], "5")
        XCTAssertEqual(options["tcp_user_timeout"], "5000")
        var pairs = try LibPQConnectionInfo.parse(try TestDatabase.baseURL())
        pairs += [("keepalives_idle", "30"), ("tcp_user_timeout", "20000")]
        let custom = try Database(url: LibPQConnectionInfo.keyValueString(pairs), poolSize: 1)
        defer { custom.close() }
        let customOptions = try custom.withConnection { $0.raw.options }
        XCTAssertEqual(customOptions["keepalives_idle"], "30")
        XCTAssertEqual(customOptions["tcp_user_timeout"], "20000")
        XCTAssertEqual(customOptions["keepalives_count"], "3")
    }

    func test_serverRole_ofTheTestServer_isPrimary() throws {
        XCTAssertEqual(try db.serverRole(), .primary)
        let down = try Database(url: "postgresql://postgres@127.0.0.1:1/catbird?sslmode=disable", poolSize: 1)
        guard case .unavailable = storeError({ try down.serverRole() }) else { return XCTFail("expected unavailable") }
    }

    /// A write refused as read-only (25006: a standby, or a session told to only read) is the
    /// database being unavailable for writes, not a failed query.
    func test_readOnlyTransaction_refusingAWrite_isUnavailable() throws {
        guard case .unavailable(let message) = storeError({
            try db.transaction { connection in
                try connection.execute("SET TRANSACTION READ ONLY")
                try connection.execute("CREATE TABLE read_only_probe (x int)")
            }
        }) else { return XCTFail("expected unavailable") }
        XCTAssertTrue(message.hasPrefix("25006"), message)
    }

    /// Connections found dead are counted as lost, and the ones opened in their place as reconnects;
    /// a first open or a failed one is neither.
    func test_connectionCounters_countOpensLossesAndReconnects() throws {
        let small = try fixture.makeDatabase(poolSize: 1)
        defer { small.close() }
        let pid = try small.query("SELECT pg_backend_pid() AS pid")[0].int32("pid")
        XCTAssertEqual([small.connections.opened, small.connections.lost, small.connections.reconnects], [1, 0, 0])
        try fixture.terminate([pid])
        XCTAssertNotEqual(try small.query("SELECT pg_backend_pid() AS pid")[0].int32("pid"), pid)
        XCTAssertEqual([small.connections.opened, small.connections.lost, small.connections.reconnects], [2, 1, 1])
        XCTAssertEqual(try small.query("SELECT 1 AS one")[0].int("one"), 1)
        XCTAssertEqual(small.connections.reconnects, 1, "a connection reused is no reconnect")

        let down = try Database(url: "postgresql://postgres@127.0.0.1:1/catbird?sslmode=disable", poolSize: 1)
        _ = storeError { try down.query("SELECT 1") }
        XCTAssertEqual([down.connections.opened, down.connections.failedOpens, down.connections.reconnects], [0, 1, 0])
    }

    /// After one connection is lost, idle ones opened before it are not lent again: behind a server
    /// that vanished without a reset, each would hold its next borrower for the dead-peer timeout.
    func test_afterALoss_idleConnectionsOpenedBefore_areReplaced() throws {
        let small = try fixture.makeDatabase(poolSize: 2)
        defer { small.close() }
        func twoAtOnce() throws -> [Int32] {
            try small.withConnection { first in try small.withConnection { second in [first.backendProcessID, second.backendProcessID] } }
        }
        let before = try twoAtOnce()
        // The pool lends its idle connections last in, first out: the outer one goes first.
        try fixture.terminate([before[0]])
        let after = try twoAtOnce()
        XCTAssertTrue(Set(after).isDisjoint(with: before), "\(before), then \(after)")
        XCTAssertEqual(small.connections.lost, 1, "the live one was replaced, not counted as lost")
        XCTAssertEqual(try twoAtOnce().sorted(), after.sorted(), "connections opened after the loss are reused")
    }

    func test_closedPort_failsFastWithUnavailable() throws {
        let down = try Database(url: "postgresql://postgres@127.0.0.1:1/catbird?sslmode=disable", poolSize: 2)
        guard case .unavailable = storeError({ try down.query("SELECT 1") }) else {
            return XCTFail("expected unavailable")
        }
        guard case .unavailable = storeError({ try down.transaction { _ in } }) else {
            return XCTFail("expected unavailable")
        }
        XCTAssertFalse(down.ping())
        XCTAssertEqual(down.poolStats.inUse, 0, "failed connects give their slot back")
        // With every slot freed again, many checkouts all fail with unavailable, none time out.
        let outcomes = Locked<[StoreError]>([])
        runOnThreads(6) { _ in
            do {
                _ = try down.query("SELECT 1")
            } catch let error as StoreError {
                outcomes.withLock { $0.append(error) }
            } catch {}
        }
        XCTAssertEqual(outcomes.value.count, 6)
        XCTAssertTrue(outcomes.value.allSatisfy { if case .unavailable = $0 { true } else { false } }, "\(outcomes.value)")
    }

    func test_ping_andPoolStats() throws {
        XCTAssertTrue(db.ping())
        XCTAssertEqual(db.poolStats.size, 4)
        XCTAssertEqual(db.poolStats.inUse, 0)
        try db.withConnection { _ in
            XCTAssertEqual(db.poolStats.inUse, 1)
            try db.withConnection { _ in XCTAssertEqual(db.poolStats.inUse, 2) }
        }
        XCTAssertEqual(db.poolStats.inUse, 0)
    }

    func test_exhaustedPool_timesOutThenRecovers() throws {
        let small = try fixture.makeDatabase(poolSize: 1, checkoutTimeout: 0.2)
        defer { small.close() }
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? small.withConnection { _ in
                held.signal()
                release.wait()
            }
        }
        holder.start()
        held.wait()
        XCTAssertEqual(storeError { try small.query("SELECT 1") }, .poolTimeout)
        XCTAssertEqual(small.poolStats.inUse, 1)
        release.signal()
        XCTAssertEqual(try small.query("SELECT 7 AS n")[0].int("n"), 7)
    }

    func test_waitingCheckouts_areServedAsConnectionsReturn() throws {
        let small = try fixture.makeDatabase(poolSize: 2, checkoutTimeout: 30)
        defer { small.close() }
        let sum = Locked(0)
        runOnThreads(8) { index in
            for step in 0..<5 {
                if let n = try? small.query("SELECT $1::int8 AS n, pg_sleep(0.001)", [index * 10 + step])[0].int("n") {
                    sum.withLock { $0 += n }
                }
            }
        }
        XCTAssertEqual(sum.value, (0..<8).reduce(0) { total, index in total + (0..<5).reduce(0) { $0 + index * 10 + $1 } })
        let backends = try small.query("SELECT 1")  // still usable
        XCTAssertEqual(backends.count, 1)
        XCTAssertEqual(small.poolStats.inUse, 0)
    }

    func test_terminatedBackends_areReplacedOnNextCheckout() throws {
        let pids = Locked<Set<Int32>>([])
        // Open two connections at once so the pool holds two idle ones.
        try db.withConnection { first in
            try db.withConnection { second in
                pids.withLock { $0 = [first.backendProcessID, second.backendProcessID] }
            }
        }
        try fixture.terminate(Array(pids.value))
        for _ in 0..<3 {
            let row = try db.query("SELECT pg_backend_pid() AS pid")[0]
            XCTAssertFalse(pids.value.contains(try row.int32("pid")))
        }
        XCTAssertTrue(db.ping())
        XCTAssertEqual(try db.transaction { try $0.query("SELECT 1 AS one")[0].int("one") }, 1)
    }

    func test_connectionKilledWhileLent_reportsUnavailableAndIsReplaced() throws {
        let small = try fixture.makeDatabase(poolSize: 1)
        defer { small.close() }
        let fixture = self.fixture!
        let oldPID = try small.withConnection { connection in
            let pid = connection.backendProcessID
            try fixture.terminate([pid])
            guard case .unavailable = storeError({ try connection.query("SELECT 1") }) else {
                XCTFail("expected unavailable")
                return pid
            }
            return pid
        }
        XCTAssertEqual(small.poolStats.inUse, 0)
        let newPID = try small.query("SELECT pg_backend_pid() AS pid")[0].int32("pid")
        XCTAssertNotEqual(newPID, oldPID)
    }

    func test_close_refusesNewCheckoutsAndWakesWaiters() throws {
        let small = try fixture.makeDatabase(poolSize: 1, checkoutTimeout: 30)
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let waiterResult = Locked<StoreError?>(nil)
        let group = DispatchGroup()
        group.enter()
        Thread {
            _ = try? small.withConnection { _ in
                held.signal()
                release.wait()
            }
            group.leave()
        }.start()
        held.wait()
        group.enter()
        Thread {
            do { _ = try small.query("SELECT 1") } catch let error as StoreError { waiterResult.withLock { $0 = error } } catch {}
            group.leave()
        }.start()
        // Close only once the second thread is queued behind the held connection.
        while small.state.withLock({ $0.waiters.count }) == 0 { Thread.sleep(forTimeInterval: 0.001) }
        small.close()
        release.signal()
        group.wait()
        XCTAssertEqual(waiterResult.value, .unavailable("the database pool is closed"))
        XCTAssertEqual(storeError { try small.query("SELECT 1") }, .unavailable("the database pool is closed"))
        XCTAssertEqual(small.poolStats.inUse, 0)
    }
}
