import DeliveryStore
import Foundation
import Store
import TestSupport
import XCTest

final class MigrationTests: XCTestCase {
    /// Applies the repository's migrations into a throwaway database, twice.
    func test_migrations_applyToAFreshDatabase_andTheSecondRunIsANoOp() throws {
        let fresh = try TestDatabase(.database, prefix: "dsmig", poolSize: 1)
        defer { fresh.drop() }
        let database = fresh.database

        let migrator = Migrator(directory: TestDatabase.migrations)
        let first = try migrator.migrate(database)
        XCTAssertTrue(first.contains("0002_delivery_service.sql"), "\(first)")
        let tables = try database.query("""
            SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename
            """).map { try $0.string("tablename") }
        for table in ["commits", "convos", "events", "idempotency", "key_packages", "members", "messages",
                      "pending_proposals", "welcomes"] {
            XCTAssertTrue(tables.contains(table), "missing table \(table) in \(tables)")
        }
        XCTAssertEqual(try migrator.migrate(database), [], "the second run applies nothing")
        let recorded = try database.query("SELECT count(*) AS n FROM schema_migrations")[0].int("n")
        XCTAssertEqual(recorded, first.count)
    }

    /// Every conversation-scoped key starts with convo_id, so the tables can be distributed by it.
    func test_conversationScopedKeys_startWithConvoID() throws {
        let fixture = try StoreFixture(poolSize: 1)
        defer { fixture.drop() }
        let rows = try fixture.database.query("""
            SELECT t.relname AS tbl, i.relname AS idx,
                   (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = t.oid AND a.attnum = x.indkey[0]) AS first_col
            FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
            JOIN pg_namespace n ON n.oid = t.relnamespace
            WHERE n.nspname = $1 AND x.indisunique
              AND t.relname IN ('convos', 'members', 'messages', 'commits', 'welcomes', 'pending_proposals', 'events')
            """, [fixture.schema])
        XCTAssertGreaterThanOrEqual(rows.count, 8)
        for row in rows {
            let index = try row.string("idx")
            XCTAssertEqual(try row.string("first_col"), "convo_id", index)
        }
    }
}
