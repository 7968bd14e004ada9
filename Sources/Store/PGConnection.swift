#if canImport(Glibc)
import Glibc
#endif

/// One database session, lent out by `Database.withConnection` or `Database.transaction`.
/// Use it only inside that closure and from one thread; do not keep it.
///
/// Statements go through the extended protocol: each distinct SQL text (with its parameter
/// types) is prepared once per connection and then executed by name. Parameters are bound,
/// never spliced into SQL; results come back in binary format.
public final class PGConnection {
    let raw: LibPQConnection
    private var statements: [StatementKey: String] = [:]
    private var statementCounter = 0
    /// The last error this connection raised, so a transaction whose body swallowed an error
    /// can still report (and retry) it.
    var lastError: StoreError?
    /// Whether the last `inTransaction` got past BEGIN.
    private(set) var beganTransaction = false
    /// Whether the last pipeline got as far as sending: after that, a broken connection leaves it
    /// unknown whether the server ran (and committed) what it got.
    var sentPipeline = false
    /// The pool's count of lost connections when this one was opened (`Database.revive`).
    var openedAfterLosses = 0

    /// Beyond this many cached statements the cache is dropped (`DEALLOCATE ALL`).
    static let statementCacheLimit = 256

    init(raw: LibPQConnection) { self.raw = raw }

    /// Runs one statement and returns its rows (none for commands without output).
    public func query(_ sql: String, _ parameters: [(any PGBindable)?] = []) throws(StoreError) -> [PGRow] {
        try run(sql, parameters).rows()
    }

    /// Runs one statement and returns the number of rows it inserted, updated, deleted or selected.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [(any PGBindable)?] = []) throws(StoreError) -> Int {
        try run(sql, parameters).affectedRows
    }

    /// Runs SQL through the simple query protocol: several `;`-separated statements, no
    /// parameters, no rows returned. For migrations and session settings, never for user input.
    public func executeScript(_ sql: String) throws(StoreError) {
        do throws(StoreError) {
            _ = try raw.exec(sql)
        } catch {
            lastError = error
            throw error
        }
    }

    /// The server process serving this session (`pg_backend_pid()`).
    public var backendProcessID: Int32 { raw.backendPID }

    /// How many prepared statements this connection holds.
    public var preparedStatementCount: Int { statements.count }

    private func run(_ sql: String, _ parameters: [(any PGBindable)?]) throws(StoreError) -> LibPQResult {
        let bindings = parameters.map { $0?.pgBinding }
        let key = StatementKey(sql: sql, types: bindings.map { $0?.type ?? .unspecified })
        do throws(StoreError) {
            do throws(StoreError) {
                return try raw.execPrepared(name: try statementName(for: key), bindings: bindings)
            } catch .queryFailed(sqlState: "0A000", _) where raw.transactionStatus == .idle {
                // "cached plan must not change result type": the schema changed under a cached
                // statement. Outside a transaction nothing was done, so prepare afresh once.
                try forget(key)
                return try raw.execPrepared(name: try statementName(for: key), bindings: bindings)
            }
        } catch {
            lastError = error
            throw error
        }
    }

    func statementName(for key: StatementKey) throws(StoreError) -> String {
        if let name = statements[key] { return name }
        if statements.count >= Self.statementCacheLimit {
            _ = try raw.exec("DEALLOCATE ALL")
            statements.removeAll()
        }
        statementCounter += 1
        let name = "s\(statementCounter)"
        _ = try raw.prepare(name: name, sql: key.sql, types: key.types)
        statements[key] = name
        return name
    }

    private func forget(_ key: StatementKey) throws(StoreError) {
        guard let name = statements.removeValue(forKey: key) else { return }
        _ = try raw.exec("DEALLOCATE \(name)")
    }

    /// Runs `body` between BEGIN and COMMIT, rolling back on any error. If the transaction was
    /// aborted by a serialization failure or deadlock, that error is thrown whatever the body
    /// threw, so the caller can retry it.
    func inTransaction<T>(_ isolation: IsolationLevel, _ body: (PGConnection) throws -> T) throws -> T {
        lastError = nil
        beganTransaction = false
        try executeScript("BEGIN ISOLATION LEVEL \(isolation.sql)")
        beganTransaction = true
        do {
            let value = try body(self)
            if raw.transactionStatus == .inError {
                // COMMIT would silently roll back; report the error the body swallowed.
                throw lastError ?? StoreError.queryFailed(sqlState: "25P02", message: "transaction was aborted")
            }
            try executeScript("COMMIT")
            return value
        } catch {
            let aborted = raw.transactionStatus == .inError
            rollbackIfNeeded()
            if aborted, let lastError, lastError.isTransient { throw lastError }
            throw error
        }
    }

    /// Leaves the session outside any transaction if it can; the pool discards it otherwise.
    func rollbackIfNeeded() {
        switch raw.transactionStatus {
        case .inTransaction, .inError: _ = try? raw.exec("ROLLBACK")
        default: break
        }
    }
}

/// A prepared statement's identity: its text as bytes (what PostgreSQL receives) and parameter types.
/// Compared by UTF-8 bytes rather than as Unicode text (a statement with one non-ASCII character
/// in a comment would otherwise be normalized on every lookup: tens of thousands of instructions
/// for the message batch's statement, once per batch), and hashed by its length and first bytes:
/// statements that share those are told apart by `==`.
struct StatementKey: Hashable {
    let sql: String
    let types: [PGType]

    static func == (lhs: StatementKey, rhs: StatementKey) -> Bool {
        guard lhs.types == rhs.types, lhs.sql.utf8.count == rhs.sql.utf8.count else { return false }
        var left = lhs.sql, right = rhs.sql
        return left.withUTF8 { a in
            right.withUTF8 { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    func hash(into hasher: inout Hasher) {
        var text = sql
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0.prefix(256)))) }
        hasher.combine(sql.utf8.count)
        hasher.combine(types)
    }
}
