import Foundation
import XCTest
@testable import Store

/// A Database confined to a fresh schema (via `search_path`), dropped afterwards, so tests and
/// repeated runs never see each other's tables.
final class TestDatabase {
    let url: String
    let schema: String
    let database: Database
    private let admin: Database

    init(poolSize: Int = 4, checkoutTimeout: Double = 5) throws {
        guard let base = ProcessInfo.processInfo.environment["DATABASE_URL"], !base.isEmpty else {
            throw XCTSkip("unreachable")  // replaced below
        }
        schema = "storetest_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        admin = try Database(url: base, poolSize: 1)
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

    /// Runs SQL as an unrelated session, e.g. to terminate this pool's backends.
    var adminDatabase: Database { admin }

    func drop() {
        database.close()
        _ = try? admin.execute("DROP SCHEMA \(schema) CASCADE")
        admin.close()
    }
}
