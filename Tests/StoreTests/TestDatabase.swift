import Foundation
import Synchronization
import XCTest
@testable import Store

struct MissingDatabaseURL: Error, CustomStringConvertible {
    var description: String {
        "DATABASE_URL is not set: start PostgreSQL with `scripts/pg.sh start .data/pg` and export the URL it prints"
    }
}

/// A Database confined to a fresh schema (via `search_path`), dropped afterwards, so tests and
/// repeated runs never see each other's tables.
final class TestDatabase {
    let url: String
    let schema: String
    let database: Database
    /// A separate pool on the default schema, for acting from outside (e.g. terminating backends).
    let admin: Database

    static func baseURL() throws -> String {
        guard let base = ProcessInfo.processInfo.environment["DATABASE_URL"], !base.isEmpty else {
            XCTFail(MissingDatabaseURL().description)
            throw MissingDatabaseURL()
        }
        return base
    }

    init(poolSize: Int = 4, checkoutTimeout: Double = 5) throws {
        let base = try Self.baseURL()
        schema = "storetest_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        admin = try Database(url: base, poolSize: 2)
        try admin.execute("CREATE SCHEMA \(schema)")
        url = try Self.url(base, searchPath: schema)
        database = try Database(url: url, poolSize: poolSize, checkoutTimeout: checkoutTimeout)
    }

    /// The base URL as a key=value string with `search_path` set to `schema`.
    static func url(_ base: String, searchPath schema: String) throws -> String {
        var pairs = try LibPQConnectionInfo.parse(base).filter { $0.0 != "options" }
        pairs.append(("options", "-c search_path=\(schema)"))
        return LibPQConnectionInfo.keyValueString(pairs)
    }

    /// Another pool on the same schema (e.g. to act as a second server process).
    func makeDatabase(poolSize: Int = 2, checkoutTimeout: Double = 5) throws -> Database {
        try Database(url: url, poolSize: poolSize, checkoutTimeout: checkoutTimeout)
    }

    /// Terminates the given server processes and waits until they are gone.
    func terminate(_ pids: [Int32]) throws {
        for pid in pids { try admin.execute("SELECT pg_terminate_backend($1)", [pid]) }
        for _ in 0..<500 {
            let alive = try admin.query("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ANY($1)",
                                        [PGArray(pids)])
            if try alive[0].int("n") == 0 { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        XCTFail("backends \(pids) still alive")
    }

    func drop() {
        database.close()
        _ = try? admin.execute("DROP SCHEMA \(schema) CASCADE")
        admin.close()
    }
}

/// The StoreError thrown by `body`, or nil (with a test failure) if it threw nothing or another error.
func storeError<T>(_ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line) -> StoreError? {
    do {
        _ = try body()
        XCTFail("expected a StoreError, nothing was thrown", file: file, line: line)
        return nil
    } catch let error as StoreError {
        return error
    } catch {
        XCTFail("expected a StoreError, got \(error)", file: file, line: line)
        return nil
    }
}

/// A base class that gives each test its own schema.
class DatabaseTestCase: XCTestCase {
    var fixture: TestDatabase!
    var db: Database { fixture.database }

    var poolSize: Int { 4 }

    override func setUpWithError() throws {
        fixture = try TestDatabase(poolSize: poolSize)
    }

    override func tearDown() {
        fixture?.drop()
        fixture = nil
    }
}

/// A value shared between test threads.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
    var value: Value { mutex.withLock { $0 } }
}

/// Runs `body(0)`, …, `body(count - 1)` on separate threads and waits for all of them.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}
