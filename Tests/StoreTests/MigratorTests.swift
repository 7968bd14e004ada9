import Foundation
import TestSupport
import XCTest
@testable import Store

final class MigratorTests: DatabaseTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    private func write(_ name: String, _ sql: String) throws {
        try sql.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    private func recorded() throws -> [String] {
        try db.query("SELECT name FROM schema_migrations ORDER BY version").map { try $0.string("name") }
    }

    func test_appliesInVersionOrder_thenSecondRunIsANoOp() throws {
        // Written out of order; 0010 must run after 0002 (numeric order), and depends on it.
        try write("0010_add_index.sql", "CREATE INDEX groups_name ON groups (name);")
        try write("0001_create.sql", """
            CREATE TABLE groups (id bigint PRIMARY KEY);
            -- a comment between statements
            CREATE TABLE log (n int);
            """)
        try write("0002_add_name.sql", "ALTER TABLE groups ADD COLUMN name text; INSERT INTO log VALUES (2);")
        try write("README.md", "not a migration")
        let migrator = Migrator(directory: directory)
        XCTAssertEqual(try migrator.migrate(db), ["0001_create.sql", "0002_add_name.sql", "0010_add_index.sql"])
        XCTAssertEqual(try recorded(), ["0001_create.sql", "0002_add_name.sql", "0010_add_index.sql"])
        XCTAssertEqual(try db.query("SELECT count(*) AS n FROM pg_indexes WHERE indexname = 'groups_name'")[0].int("n"), 1)

        XCTAssertEqual(try migrator.migrate(db), [])
        XCTAssertEqual(try db.query("SELECT count(*) AS n FROM log")[0].int("n"), 1, "nothing ran twice")

        try write("0011_more.sql", "INSERT INTO log VALUES (11);")
        XCTAssertEqual(try migrator.migrate(db), ["0011_more.sql"])
        let appliedAt = try db.query("SELECT applied_at FROM schema_migrations WHERE version = 11")[0].date("applied_at")
        XCTAssertLessThan(abs(appliedAt.timeIntervalSinceNow), 3600)
    }

    func test_failingMigration_rollsBackAndNamesTheFile() throws {
        try write("0001_ok.sql", "CREATE TABLE kept (n int);")
        try write("0002_broken.sql", "CREATE TABLE half (n int); INSERT INTO half VALUES ('not a number');")
        try write("0003_later.sql", "CREATE TABLE later (n int);")
        let migrator = Migrator(directory: directory)
        guard case .migrationFailed(let file, let message) = storeError({ try migrator.migrate(db) }) else {
            return XCTFail("expected migrationFailed")
        }
        XCTAssertEqual(file, "0002_broken.sql")
        XCTAssertTrue(message.contains("22P02"), message)
        XCTAssertEqual(try recorded(), ["0001_ok.sql"])
        let tables = try db.query("SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename",
                                  [fixture.schema]).map { try $0.string("tablename") }
        XCTAssertEqual(tables, ["kept", "schema_migrations"], "0002 rolled back, 0003 never ran")

        try write("0002_broken.sql", "CREATE TABLE half (n int);")
        XCTAssertEqual(try migrator.migrate(db), ["0002_broken.sql", "0003_later.sql"])
    }

    func test_concurrentMigrators_applyEachFileOnce() throws {
        try write("0001_counter.sql", "CREATE TABLE runs (file text); INSERT INTO runs VALUES ('0001');")
        try write("0002_slow.sql", "SELECT pg_sleep(0.05); INSERT INTO runs VALUES ('0002');")
        try write("0003_more.sql", "INSERT INTO runs VALUES ('0003');")
        let migrator = Migrator(directory: directory)
        let databases = try (0..<3).map { _ in try fixture.makeDatabase(poolSize: 1) }
        defer { databases.forEach { $0.close() } }
        let applied = Locked<[String]>([])
        let failures = Locked<[String]>([])
        runOnThreads(3) { index in
            do {
                let names = try migrator.migrate(databases[index])
                applied.withLock { $0 += names }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.value, [])
        XCTAssertEqual(applied.value.sorted(), ["0001_counter.sql", "0002_slow.sql", "0003_more.sql"])
        XCTAssertEqual(try db.query("SELECT file FROM runs ORDER BY file").map { try $0.string(0) }, ["0001", "0002", "0003"])
    }

    func test_renamedAppliedVersion_isReported() throws {
        try write("0001_first.sql", "SELECT 1;")
        try Migrator(directory: directory).migrate(db)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("0001_first.sql"))
        try write("0001_other.sql", "SELECT 1;")
        XCTAssertEqual(storeError { try Migrator(directory: directory).migrate(db) },
                       .migrationFailed(file: "0001_other.sql", message: "version 1 was applied as 0001_first.sql"))
    }

    func test_badFileNamesAndDuplicates_areRejectedBeforeAnythingRuns() throws {
        try write("0001_ok.sql", "CREATE TABLE never (n int);")
        try write("0001_again.sql", "SELECT 1;")
        guard case .migrationFailed = storeError({ try Migrator(directory: directory).migrate(db) }) else {
            return XCTFail("expected migrationFailed")
        }
        XCTAssertEqual(try db.query("SELECT to_regclass('never') IS NULL AS missing")[0].bool(0), true)
        let missing = Migrator(directory: directory.appendingPathComponent("nope"))
        guard case .migrationFailed = storeError({ try missing.migrate(db) }) else {
            return XCTFail("expected migrationFailed")
        }
    }
}

final class MigrationFileTests: XCTestCase {
    private func parse(_ name: String) throws(StoreError) -> MigrationFile? {
        try MigrationFile(url: URL(fileURLWithPath: "/m/\(name)"))
    }

    func test_wellFormedNames() throws {
        XCTAssertEqual(try parse("0001_init.sql")?.version, 1)
        XCTAssertEqual(try parse("0042_add-keys_2.sql")?.version, 42)
        XCTAssertEqual(try parse("12345_five_digits.sql")?.version, 12345)
        XCTAssertEqual(try parse("0001_init.sql")?.fileName, "0001_init.sql")
        XCTAssertNil(try parse("README.md"))
        XCTAssertNil(try parse("0001_init.sql.bak"))
    }

    func test_malformedNames_areErrors() {
        for name in ["init.sql", "001_short.sql", "0001init.sql", "0001_.sql", ".sql", "0001_bad name.sql",
                     "0001_dot.name.sql", "abcd_x.sql", "0000000000001_too_long.sql", "٠٠٠١_arabic.sql"] {
            XCTAssertEqual(storeError { try parse(name) },
                           .migrationFailed(file: name, message: "migration files must be named NNNN_name.sql"), name)
        }
    }
}
