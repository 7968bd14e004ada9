import Foundation
import XCTest
@testable import Store

final class PGConnectionTests: DatabaseTestCase {
    func test_preparedStatements_areReusedPerConnection() throws {
        try db.withConnection { connection in
            let sql = "SELECT $1::int8 + 1 AS n"
            XCTAssertEqual(try connection.query(sql, [1])[0].int("n"), 2)
            let afterFirst = connection.preparedStatementCount
            XCTAssertEqual(try connection.query(sql, [41])[0].int("n"), 42)
            XCTAssertEqual(connection.preparedStatementCount, afterFirst)
            let onServer = try connection.query(
                "SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = $1", [sql])
            XCTAssertEqual(try onServer[0].int("n"), 1, "the server holds the statement exactly once")
        }
    }

    func test_sameSQLWithDifferentParameterTypes_getsItsOwnStatement() throws {
        try db.withConnection { connection in
            let sql = "SELECT $1::text AS v"
            XCTAssertNil(try connection.query(sql, [nil])[0].optionalString("v"))
            XCTAssertEqual(try connection.query(sql, [Int64(12)])[0].string("v"), "12")
            XCTAssertEqual(try connection.query(sql, ["x"])[0].string("v"), "x")
            // NULL and String both leave the type to the server, so they share a statement.
            XCTAssertEqual(connection.preparedStatementCount, 2)
        }
    }

    func test_execute_reportsRowsAffected() throws {
        try db.execute("CREATE TABLE counted (n int)")
        XCTAssertEqual(try db.execute("INSERT INTO counted SELECT generate_series(1, 5)"), 5)
        XCTAssertEqual(try db.execute("UPDATE counted SET n = n + 1 WHERE n > $1", [3]), 2)
        XCTAssertEqual(try db.execute("DELETE FROM counted WHERE n = $1", [999]), 0)
        XCTAssertEqual(try db.execute("CREATE INDEX ON counted (n)"), 0)
    }

    func test_constraintViolations_areTypedWithTheConstraintName() throws {
        try db.withConnection { connection in
            try connection.executeScript("""
                CREATE TABLE parent (id int PRIMARY KEY);
                CREATE TABLE child (
                    id int CONSTRAINT child_id_key UNIQUE,
                    parent int CONSTRAINT child_parent_fk REFERENCES parent (id),
                    size int CONSTRAINT child_size_positive CHECK (size > 0));
                INSERT INTO parent VALUES (1);
                """)
            try connection.execute("INSERT INTO child VALUES ($1, $2, $3)", [1, 1, 1])
            XCTAssertEqual(storeError { try connection.execute("INSERT INTO child VALUES ($1, $2, $3)", [1, 1, 1]) },
                           .uniqueViolation(constraint: "child_id_key"))
            XCTAssertEqual(storeError { try connection.execute("INSERT INTO child VALUES ($1, $2, $3)", [2, 9, 1]) },
                           .foreignKeyViolation(constraint: "child_parent_fk"))
            XCTAssertEqual(storeError { try connection.execute("INSERT INTO child VALUES ($1, $2, $3)", [3, 1, 0]) },
                           .checkViolation(constraint: "child_size_positive"))
            XCTAssertEqual(storeError { try connection.execute("INSERT INTO parent VALUES (1)") },
                           .uniqueViolation(constraint: "parent_pkey"))
        }
    }

    func test_otherErrors_carrySQLStateAndMessage() throws {
        guard let error = storeError({ try db.query("SELEC 1") }) else { return }
        guard case .queryFailed(let state, let message) = error else { return XCTFail("\(error)") }
        XCTAssertEqual(state, "42601")
        XCTAssertTrue(message.contains("syntax error"), message)
        XCTAssertEqual(storeError { try db.query("SELECT 1/0") },
                       .queryFailed(sqlState: "22012", message: "division by zero"))
        XCTAssertEqual(storeError { try db.query("SELECT * FROM no_such_table") },
                       .queryFailed(sqlState: "42P01", message: "relation \"no_such_table\" does not exist"))
        XCTAssertFalse(StoreError.queryFailed(sqlState: "22012", message: "x").isTransient)
    }

    func test_executeScript_runsSeveralStatements() throws {
        try db.withConnection { connection in
            try connection.executeScript("CREATE TABLE s (n int); INSERT INTO s VALUES (1); INSERT INTO s VALUES (2);")
            XCTAssertEqual(try connection.query("SELECT sum(n) AS total FROM s")[0].int("total"), 3)
            try connection.executeScript("-- only a comment")
        }
    }

    func test_cachedStatement_survivesASchemaChange() throws {
        try db.execute("CREATE TABLE evolving (a int)")
        try db.execute("INSERT INTO evolving VALUES (1)")
        try db.withConnection { connection in
            XCTAssertEqual(try connection.query("SELECT * FROM evolving")[0].columnCount, 1)
            try connection.executeScript("ALTER TABLE evolving ADD COLUMN b text DEFAULT 'x'")
            let row = try connection.query("SELECT * FROM evolving")[0]
            XCTAssertEqual(row.columnNames, ["a", "b"])
            XCTAssertEqual(try row.string("b"), "x")
        }
    }

    func test_numeric_matchesTheServersText() throws {
        let values = ["0", "-0.001", "123.4500", "1e30", "-98765.4321", "0.00000001", "NaN", "99999999.9999", "10000"]
        for value in values {
            let row = try db.query("SELECT $1::numeric AS n, $1::numeric::text AS t", [value])[0]
            XCTAssertEqual(try row.string("n"), try row.string("t"), value)
        }
        XCTAssertEqual(try db.query("SELECT sum(x) AS s FROM (VALUES (9223372036854775807::int8), (-5::int8)) v(x)")[0]
                        .int64("s"), 9_223_372_036_854_775_802)
    }
}
