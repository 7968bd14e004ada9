import Store
import XCTest

/// The rows a request could have changed, read straight from PostgreSQL (not through the API), so a
/// test can show that a refused request left the database exactly as it was.
final class DatabaseRows {
    private let database: Database

    init(_ service: ServiceHarness) throws {
        database = try Database(url: service.databaseURL, poolSize: 1)
    }

    deinit { database.close() }

    static let convoTables = ["convos", "members", "messages", "commits", "welcome_messages", "welcomes", "pending_proposals",
                              "events"]

    /// Every row of every conversation-scoped table for `convoID`, as JSON text, sorted.
    func convo(_ convoID: String) throws -> [String] {
        var rows: [String] = []
        for table in Self.convoTables {
            rows += try database.query(
                "SELECT '\(table) ' || row_to_json(t)::text AS j FROM \(table) t WHERE convo_id = $1", [convoID]
            ).map { try $0.string("j") }
        }
        return rows.sorted()
    }

    /// Every KeyPackage row of these owners (consumed or not), as JSON text, sorted.
    func keyPackages(of dids: [String]) throws -> [String] {
        try database.query("SELECT row_to_json(t)::text AS j FROM key_packages t WHERE owner_did = ANY($1)", [PGArray(dids)])
            .map { try $0.string("j") }.sorted()
    }

    /// Both, for a conversation and the KeyPackages of its (would-be) members.
    func snapshot(convo convoID: String, owners: [String]) throws -> [String] {
        try convo(convoID) + keyPackages(of: owners)
    }

    /// Rows of any query, for what the snapshots do not show.
    func query(_ sql: String, _ parameters: [(any PGBindable)?] = []) throws -> [PGRow] {
        try database.query(sql, parameters)
    }

    func execute(_ sql: String, _ parameters: [(any PGBindable)?] = []) throws {
        _ = try database.execute(sql, parameters)
    }

    func frozenEpoch(_ convoID: String) throws -> Int64? {
        try database.query("SELECT frozen_epoch FROM convos WHERE convo_id = $1", [convoID]).first?.optionalInt64("frozen_epoch")
    }
}
