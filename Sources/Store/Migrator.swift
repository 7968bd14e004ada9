import Foundation

/// Applies `NNNN_name.sql` files from a directory in version order, each in its own
/// transaction, recording them in `schema_migrations(version, name, applied_at)`.
///
/// Safe to run from several processes at once: each file's transaction first takes a
/// transaction-scoped advisory lock, then checks whether that version is already recorded.
/// File bodies run through the simple query protocol, so a file may hold several statements;
/// it must not contain BEGIN/COMMIT or statements that cannot run in a transaction
/// (e.g. CREATE INDEX CONCURRENTLY).
public struct Migrator: Sendable {
    public let directory: URL

    /// The `pg_advisory_xact_lock` key shared by every migrator ("catbmig1" in ASCII).
    static let lockKey: Int64 = 0x6361_7462_6D69_6731

    static let createTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version integer PRIMARY KEY,
            name text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """

    public init(directory: URL) { self.directory = directory }

    /// Applies the files not yet recorded and returns their file names, in order.
    @discardableResult
    public func migrate(_ database: Database) throws(StoreError) -> [String] {
        let files = try MigrationFile.list(in: directory)
        let connection = try database.checkout()
        defer { database.checkin(connection) }
        var applied: [String] = []
        for file in files {
            if try apply(file, on: connection) { applied.append(file.fileName) }
        }
        return applied
    }

    /// Applies one file unless already recorded; true if it was applied now.
    private func apply(_ file: MigrationFile, on connection: PGConnection) throws(StoreError) -> Bool {
        let body = try file.contents()
        do throws(StoreError) {
            try connection.executeScript("BEGIN")
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [Self.lockKey])
            try connection.executeScript(Self.createTable)
            let recorded = try connection.query("SELECT name FROM schema_migrations WHERE version = $1", [file.version])
            if let row = recorded.first {
                let name = try row.string("name")
                guard name == file.fileName else {
                    throw .migrationFailed(file: file.fileName, message: "version \(file.version) was applied as \(name)")
                }
                try connection.executeScript("COMMIT")
                return false
            }
            do throws(StoreError) {
                try connection.executeScript(body)
                try connection.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [file.version, file.fileName])
                try connection.executeScript("COMMIT")
            } catch .unavailable(let reason) {
                throw .unavailable(reason)
            } catch .migrationFailed(let name, let message) {
                throw .migrationFailed(file: name, message: message)
            } catch {
                throw .migrationFailed(file: file.fileName, message: error.description)
            }
            return true
        } catch {
            connection.rollbackIfNeeded()
            throw error
        }
    }
}
