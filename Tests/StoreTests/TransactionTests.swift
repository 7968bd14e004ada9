import Foundation
import TestSupport
import XCTest
@testable import Store

private struct DomainError: Error {}

final class TransactionTests: DatabaseTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try db.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)")
        try db.execute("INSERT INTO accounts VALUES (1, 100), (2, 100)")
    }

    private func balance(_ id: Int) throws -> Int {
        try db.query("SELECT balance FROM accounts WHERE id = $1", [id])[0].int("balance")
    }

    func test_commit_makesChangesVisible() throws {
        let result = try db.transaction { connection in
            try connection.execute("UPDATE accounts SET balance = balance - 30 WHERE id = 1")
            try connection.execute("UPDATE accounts SET balance = balance + 30 WHERE id = 2")
            return "done"
        }
        XCTAssertEqual(result, "done")
        XCTAssertEqual(try balance(1), 70)
        XCTAssertEqual(try balance(2), 130)
    }

    func test_thrownError_rollsBackAndPropagates() throws {
        XCTAssertThrowsError(try db.transaction { connection in
            try connection.execute("UPDATE accounts SET balance = 0 WHERE id = 1")
            throw DomainError()
        }) { XCTAssertTrue($0 is DomainError) }
        XCTAssertEqual(try balance(1), 100)

        XCTAssertEqual(storeError {
            try db.transaction { connection in
                try connection.execute("UPDATE accounts SET balance = 0 WHERE id = 1")
                try connection.execute("INSERT INTO accounts VALUES (2, 5)")
            }
        }, .uniqueViolation(constraint: "accounts_pkey"))
        XCTAssertEqual(try balance(1), 100)
    }

    func test_swallowedError_stillFailsTheCommit() throws {
        XCTAssertEqual(storeError {
            try db.transaction { connection in
                try connection.execute("UPDATE accounts SET balance = 0 WHERE id = 1")
                _ = try? connection.execute("INSERT INTO accounts VALUES (2, 5)")
            }
        }, .uniqueViolation(constraint: "accounts_pkey"))
        XCTAssertEqual(try balance(1), 100)
    }

    func test_isolationLevel_isApplied() throws {
        for level in IsolationLevel.allCases {
            let shown = try db.transaction(isolation: level) { connection in
                try connection.query("SHOW transaction_isolation")[0].string(0)
            }
            XCTAssertEqual(shown, level.sqlName)
        }
    }

    /// Write skew: each transaction reads both rows and then writes one. Under SERIALIZABLE one
    /// of the two must fail with 40001; a retry then succeeds and both updates land.
    private func runWriteSkew(maxRetries: Int) -> (attempts: Int, failures: [StoreError]) {
        let db = self.db
        let attempts = Locked(0)
        let failures = Locked<[StoreError]>([])
        let firstAttemptDone = Locked<Set<Int>>([])
        let bothRead = DispatchGroup()
        bothRead.enter()
        bothRead.enter()
        runOnThreads(2) { index in
            let id = index + 1
            do {
                try db.transaction(isolation: .serializable, maxRetries: maxRetries) { connection in
                    attempts.withLock { $0 += 1 }
                    _ = try connection.query("SELECT sum(balance) AS total FROM accounts")
                    if firstAttemptDone.withLock({ $0.insert(id).inserted }) {
                        // Both transactions take their snapshot before either writes.
                        bothRead.leave()
                        bothRead.wait()
                    }
                    try connection.execute("UPDATE accounts SET balance = balance + 1 WHERE id = $1", [id])
                }
            } catch let error as StoreError {
                failures.withLock { $0.append(error) }
            } catch {
                XCTFail("unexpected \(error)")
            }
        }
        return (attempts.value, failures.value)
    }

    func test_serializationFailure_isRetriedUntilBothSucceed() throws {
        let (attempts, failures) = runWriteSkew(maxRetries: 5)
        XCTAssertEqual(failures, [])
        XCTAssertGreaterThanOrEqual(attempts, 3, "one transaction must have been retried")
        XCTAssertEqual(try balance(1), 101)
        XCTAssertEqual(try balance(2), 101)
    }

    func test_serializationFailure_surfacesWhenRetriesAreUsedUp() throws {
        let (attempts, failures) = runWriteSkew(maxRetries: 0)
        XCTAssertEqual(attempts, 2)
        XCTAssertEqual(failures, [.serializationFailure])
        XCTAssertEqual(try balance(1) + balance(2), 201, "exactly one update committed")
    }

    func test_deadlock_isRetried() throws {
        let db = self.db
        let attempts = Locked(0)
        let outcomes = Locked<[String]>([])
        let firstAttemptDone = Locked<Set<Int>>([])
        let bothLocked = DispatchGroup()
        bothLocked.enter()
        bothLocked.enter()
        runOnThreads(2) { index in
            let (mine, theirs) = index == 0 ? (1, 2) : (2, 1)
            do {
                try db.transaction { connection in
                    attempts.withLock { $0 += 1 }
                    try connection.executeScript("SET LOCAL deadlock_timeout = '50ms'")
                    try connection.execute("UPDATE accounts SET balance = balance + 1 WHERE id = $1", [mine])
                    if firstAttemptDone.withLock({ $0.insert(index).inserted }) {
                        bothLocked.leave()
                        bothLocked.wait()
                    }
                    try connection.execute("UPDATE accounts SET balance = balance + 1 WHERE id = $1", [theirs])
                }
                outcomes.withLock { $0.append("ok") }
            } catch {
                outcomes.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(outcomes.value, ["ok", "ok"])
        XCTAssertGreaterThanOrEqual(attempts.value, 3)
        XCTAssertEqual(try balance(1), 102)
        XCTAssertEqual(try balance(2), 102)
    }

    func test_connectionReturnedToPool_isOutsideAnyTransaction() throws {
        let small = try fixture.makeDatabase(poolSize: 1)
        defer { small.close() }
        try small.withConnection { connection in
            try connection.executeScript("BEGIN")
            try connection.execute("UPDATE accounts SET balance = 0 WHERE id = 1")
        }
        try small.withConnection { connection in
            XCTAssertEqual(try connection.query("SELECT balance FROM accounts WHERE id = 1")[0].int(0), 100)
            XCTAssertEqual(connection.raw.transactionStatus, .idle)
        }
    }
}

extension IsolationLevel {
    var sqlName: String {
        switch self {
        case .readCommitted: "read committed"
        case .repeatableRead: "repeatable read"
        case .serializable: "serializable"
        }
    }
}
