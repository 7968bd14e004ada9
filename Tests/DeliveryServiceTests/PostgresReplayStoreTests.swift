import TestSupport
import XCTest
import Foundation
import Store
import Synchronization
import ATProto
import DeliveryService

/// AUTH.md check 9 against a real PostgreSQL (end to end: RequestValidationTests.test_replayedToken_is401), on a fresh
/// migrated schema.
final class PostgresReplayStoreTests: XCTestCase {
    private var namespace: TestDatabase!
    private let clock = TestClock()
    private var store: PostgresReplayStore!

    override func setUpWithError() throws {
        namespace = try TestDatabase(.schema, prefix: "replaytest", poolSize: 4, migrate: true)
        store = PostgresReplayStore(database: namespace.database, clock: clock.closure)
    }

    override func tearDown() {
        namespace?.drop()
    }

    private var iss: String { TestIdentity().did.rawValue }

    func testSecondUseIsAReplay() throws {
        let issuer = iss
        let until = clock.now.addingTimeInterval(120)
        XCTAssertTrue(try store.remember(iss: issuer, jti: "n1", until: until))
        XCTAssertFalse(try store.remember(iss: issuer, jti: "n1", until: until))
        XCTAssertTrue(try store.remember(iss: issuer, jti: "n2", until: until))
        XCTAssertTrue(try store.remember(iss: iss, jti: "n1", until: until), "another issuer, same jti")
    }

    func testExpiredRowIsTakenOverAndCleanedUp() throws {
        let issuer = iss
        XCTAssertTrue(try store.remember(iss: issuer, jti: "old", until: clock.now.addingTimeInterval(60)))
        clock.advance(by: 61)
        XCTAssertTrue(try store.remember(iss: issuer, jti: "old", until: clock.now.addingTimeInterval(60)), "the old row expired")
        XCTAssertFalse(try store.remember(iss: issuer, jti: "old", until: clock.now.addingTimeInterval(60)))

        XCTAssertTrue(try store.remember(iss: issuer, jti: "short", until: clock.now.addingTimeInterval(10)))
        let deleted = try store.deleteExpired(now: clock.now.addingTimeInterval(30))
        XCTAssertGreaterThanOrEqual(deleted, 1)
        let rows = try namespace.database.query("SELECT jti FROM auth_replay WHERE iss = $1 ORDER BY jti", [issuer])
        XCTAssertEqual(try rows.map { try $0.string("jti") }, ["old"])
    }

    func testConcurrentUseAdmitsExactlyOne() throws {
        let issuer = iss
        let until = clock.now.addingTimeInterval(120)
        let store = self.store!
        let admitted = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if (try? store.remember(iss: issuer, jti: "race", until: until)) == true {
                admitted.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(admitted.withLock { $0 }, 1)
    }
}
