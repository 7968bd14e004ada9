import Foundation
import Synchronization
import XCTest
@testable import Store
import TestSupport

extension TestDatabase {
    var schema: String { name }

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
        fixture = try TestDatabase(.schema, prefix: "storetest", poolSize: poolSize)
    }

    override func tearDown() {
        fixture?.drop()
        fixture = nil
    }
}
