import Foundation
import XCTest
@testable import Store

/// libpq pipeline mode: several statements, one round trip, each answered in order.
final class PipelineTests: DatabaseTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try db.execute("CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)")
    }

    func test_pipeline_answersEachStatementInOrder_andSkipsWhatFollowsAFailure() throws {
        let results = try db.withConnection { connection in
            try connection.pipeline([
                PGStatement("INSERT INTO items VALUES ($1, $2) RETURNING id", [1, "one"]),
                PGStatement("SELECT name FROM items WHERE id = $1", [1]),
                PGStatement("INSERT INTO items VALUES ($1, $2)", [1, "again"]),
                PGStatement("SELECT count(*) FROM items"),
            ])
        }
        XCTAssertEqual(results.count, 4)
        XCTAssertEqual(try results[0].get().first?.int("id"), 1)
        XCTAssertEqual(try results[1].get().first?.string("name"), "one")
        guard case .failure(.uniqueViolation(constraint: "items_pkey")) = results[2] else { return XCTFail("\(results[2])") }
        guard case .failure(.queryFailed(sqlState: "25P02", _)) = results[3] else { return XCTFail("\(results[3])") }
        // Without BEGIN the statements shared the implicit transaction the failure rolled back.
        XCTAssertEqual(try db.query("SELECT count(*) FROM items")[0].int(0), 0)
    }

    func test_pipelinedTransaction_commitsEverything_orNothing_andLeavesTheConnectionUsable() throws {
        let rows = try db.pipelinedTransaction([
            PGStatement("INSERT INTO items VALUES ($1, $2)", [1, "one"]),
            PGStatement("INSERT INTO items VALUES ($1, $2) RETURNING name", [2, "two"]),
        ])
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(try rows[1].first?.string("name"), "two")
        XCTAssertEqual(storeError {
            try db.pipelinedTransaction([
                PGStatement("INSERT INTO items VALUES ($1, $2)", [3, "three"]),
                PGStatement("INSERT INTO items VALUES ($1, $2)", [1, "duplicate"]),
                PGStatement("INSERT INTO items VALUES ($1, $2)", [4, "four"]),
            ])
        }, .uniqueViolation(constraint: "items_pkey"))
        XCTAssertEqual(try db.query("SELECT id FROM items ORDER BY id").map { try $0.int("id") }, [1, 2])
        // The pool's connections are idle and work, in and out of pipeline mode.
        for _ in 0..<3 {
            XCTAssertEqual(try db.query("SELECT count(*) FROM items")[0].int(0), 2)
            XCTAssertEqual(try db.pipelinedTransaction([PGStatement("SELECT $1::int AS n", [7])])[0][0].int("n"), 7)
        }
    }

    func test_pipelinedTransaction_seesItsOwnEarlierStatements_andLargeParameters() throws {
        let big = String(repeating: "x", count: 300_000)
        let rows = try db.pipelinedTransaction([
            PGStatement("INSERT INTO items VALUES ($1, $2)", [1, big]),
            PGStatement("SELECT length(name) AS n FROM items WHERE id = $1", [1]),
        ])
        XCTAssertEqual(try rows[1][0].int("n"), 300_000)
    }

    /// Statements after COMMIT run in the same round trip once the transaction is committed, see
    /// its rows, and their failure is returned without undoing it; a failed transaction skips them.
    func test_pipelinedTransaction_afterCommit_runsOnceCommitted_andItsFailureUndoesNothing() throws {
        try db.execute("CREATE TABLE log (id int PRIMARY KEY, seen int NOT NULL)")
        let committed = try db.pipelinedTransaction([PGStatement("INSERT INTO items VALUES ($1, $2) RETURNING id", [1, "one"])],
                                                    afterCommit: [
            PGStatement("INSERT INTO log SELECT 1, count(*) FROM items RETURNING seen"),
            PGStatement("INSERT INTO log VALUES (1, 0)"),
        ])
        XCTAssertEqual(try committed.rows.map { try $0.map { try $0.int("id") } }, [[1]])
        XCTAssertEqual(committed.afterCommitFailure, .uniqueViolation(constraint: "log_pkey"))
        XCTAssertEqual(try db.query("SELECT count(*) FROM items")[0].int(0), 1, "the transaction stays committed")
        // The after-commit statements share one transaction, which their failure rolled back.
        XCTAssertEqual(try db.query("SELECT count(*) FROM log")[0].int(0), 0)

        _ = try db.pipelinedTransaction([PGStatement("INSERT INTO items VALUES ($1, $2)", [2, "two"])],
                                        afterCommit: [PGStatement("INSERT INTO log SELECT 2, count(*) FROM items")])
        XCTAssertEqual(try db.query("SELECT seen FROM log WHERE id = 2")[0].int("seen"), 2, "it saw the committed rows")

        XCTAssertEqual(storeError {
            try db.pipelinedTransaction([PGStatement("INSERT INTO items VALUES ($1, $2)", [1, "again"])],
                                        afterCommit: [PGStatement("INSERT INTO log VALUES (3, 0)")])
        }, .uniqueViolation(constraint: "items_pkey"))
        XCTAssertEqual(try db.query("SELECT count(*) FROM log WHERE id = 3")[0].int(0), 0, "skipped after the failure")
        XCTAssertEqual(try db.query("SELECT count(*) FROM items")[0].int(0), 2)
    }
}
