import Foundation
import Store
import XCTest

/// The one test-database fixture: a fresh namespace on the PostgreSQL server of DATABASE_URL
/// (`make test` starts one), optionally migrated, dropped by `drop()`, so tests and repeated runs
/// never see each other's rows. `.schema` confines sessions to a new schema through `search_path`
/// (cheap: store tests); `.database` creates a whole database (a running service, whose migrations,
/// LISTEN/NOTIFY and secrets must not meet another test's).
public final class TestDatabase {
    public enum Scope: Sendable { case schema, database }

    public let scope: Scope
    /// The schema's or the database's name.
    public let name: String
    /// A connection string for the fresh namespace.
    public let url: String
    /// A pool on the namespace.
    public let database: Database
    /// A pool on the base database, for acting from outside (creating, dropping, terminating backends).
    public let admin: Database

    /// The repository's `migrations/`.
    public static let migrations = URL(fileURLWithPath: repositoryRoot).appendingPathComponent("migrations")

    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    public struct MissingDatabaseURL: Error, CustomStringConvertible {
        public var description: String {
            "DATABASE_URL is not set: run the tests through `make test`, or start PostgreSQL with "
                + "`scripts/pg.sh start .data/pg` and export the URL it prints"
        }
    }

    /// DATABASE_URL; a test failure (not a skip) when it is missing.
    public static func baseURL() throws -> String {
        guard let base = ProcessInfo.processInfo.environment["DATABASE_URL"], !base.isEmpty else {
            XCTFail(MissingDatabaseURL().description)
            throw MissingDatabaseURL()
        }
        return base
    }

    /// - Parameter server: the PostgreSQL server to make the namespace on; DATABASE_URL's by default.
    public init(_ scope: Scope = .schema, prefix: String = "test", poolSize: Int = 4, checkoutTimeout: Double = 5,
                migrate: Bool = false, server: String? = nil) throws {
        let base = try server ?? Self.baseURL()
        self.scope = scope
        name = prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        admin = try Database(url: base, poolSize: 2)
        var pairs = try LibPQConnectionInfo.parse(base)
        switch scope {
        case .schema:
            try admin.execute("CREATE SCHEMA \(name)")
            pairs = pairs.filter { $0.0 != "options" } + [("options", "-c search_path=\(name)")]
        case .database:
            try admin.execute("CREATE DATABASE \(name)")
            pairs = pairs.filter { $0.0 != "dbname" } + [("dbname", name)]
        }
        url = LibPQConnectionInfo.keyValueString(pairs)
        database = try Database(url: url, poolSize: poolSize, checkoutTimeout: checkoutTimeout)
        if migrate { try Migrator(directory: Self.migrations).migrate(database) }
    }

    /// Another pool on the namespace (e.g. to act as a second server process).
    public func makeDatabase(poolSize: Int = 2, checkoutTimeout: Double = 5) throws -> Database {
        try Database(url: url, poolSize: poolSize, checkoutTimeout: checkoutTimeout)
    }

    public func drop() {
        database.close()
        switch scope {
        case .schema: _ = try? admin.execute("DROP SCHEMA \(name) CASCADE")
        case .database: _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        }
        admin.close()
    }
}
