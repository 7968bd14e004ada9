/// One statement of a pipeline: SQL text and its parameters, as `PGConnection.query` takes them.
public struct PGStatement: Sendable {
    public var sql: String
    public var parameters: [(any PGBindable)?]

    public init(_ sql: String, _ parameters: [(any PGBindable)?] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}

/// What `pipelinedTransaction(_:isolation:afterCommit:)` returns: the committed statements' rows, and
/// the first failure among the statements that ran after the commit.
public struct PipelinedCommit: Sendable {
    public var rows: [[PGRow]]
    public var afterCommitFailure: StoreError?
}

extension PGConnection {
    /// Sends every statement at once in libpq's pipeline mode and reads the answers after one
    /// sync: one round trip for the lot (PostgreSQL manual §34.5). Each statement is prepared on
    /// this connection first if it is not yet (a round trip of its own, once per connection).
    ///
    /// The statements run in order; without BEGIN they share the implicit transaction that ends at
    /// the sync. Once one fails, the server skips the rest: they report 25P02. A broken
    /// connection throws `unavailable`.
    public func pipeline(_ statements: [PGStatement]) throws(StoreError) -> [Result<[PGRow], StoreError>] {
        try sendPipeline(statements.map { .prepared($0) })
    }

    /// `statements` between BEGIN and COMMIT in one pipeline: one round trip for a whole
    /// transaction. Returns each statement's rows once COMMIT has succeeded; otherwise throws the
    /// first failure (the transaction is rolled back and the connection left idle).
    public func pipelinedTransaction(_ statements: [PGStatement],
                                     isolation: IsolationLevel = .readCommitted) throws(StoreError) -> [[PGRow]] {
        try pipelinedTransaction(statements, isolation: isolation, afterCommit: []).rows
    }

    /// The same, followed in the same round trip by `afterCommit`, which run once COMMIT has
    /// succeeded, in a transaction of their own that ends at the sync (and that the server skips
    /// when the first failed). Their failure does not undo the commit: it is returned, not thrown.
    ///
    /// What this is for: a NOTIFY inside a transaction takes a cluster-wide lock that it holds until
    /// the commit has been flushed to disk (PostgreSQL's async.c, PreCommit_Notify), so concurrent
    /// notifying transactions commit one at a time. Notifying after the commit, in a transaction
    /// that writes no WAL, keeps the writers' commits concurrent.
    public func pipelinedTransaction(_ statements: [PGStatement], isolation: IsolationLevel = .readCommitted,
                                     afterCommit: [PGStatement]) throws(StoreError) -> PipelinedCommit {
        let results = try sendPipeline([.command("BEGIN ISOLATION LEVEL \(isolation.sql)")]
            + statements.map { .prepared($0) } + [.command("COMMIT")] + afterCommit.map { .prepared($0) })
        let transaction = results.prefix(statements.count + 2)
        var rows: [[PGRow]] = []
        for result in transaction {
            switch result {
            case .success(let value): rows.append(value)
            case .failure(let error):
                rollbackIfNeeded()
                throw firstFailure(in: Array(transaction)) ?? error
            }
        }
        return PipelinedCommit(rows: Array(rows.dropFirst().dropLast()),
                               afterCommitFailure: firstFailure(in: Array(results.suffix(afterCommit.count))))
    }

    private enum PipelineItem {
        case prepared(PGStatement)
        case command(String)
    }

    private func sendPipeline(_ items: [PipelineItem]) throws(StoreError) -> [Result<[PGRow], StoreError>] {
        sentPipeline = false
        // Preparing needs a round trip of its own, so it happens before the pipeline starts.
        var prepared: [(name: String, bindings: [PGBinding?])?] = []
        for item in items {
            guard case .prepared(let statement) = item else {
                prepared.append(nil)
                continue
            }
            let bindings = statement.parameters.map { $0?.pgBinding }
            let key = StatementKey(sql: statement.sql, types: bindings.map { $0?.type ?? .unspecified })
            prepared.append((try statementName(for: key), bindings))
        }
        sentPipeline = true
        try raw.enterPipelineMode()
        var results: [Result<[PGRow], StoreError>] = []
        do throws(StoreError) {
            for (item, statement) in zip(items, prepared) {
                switch item {
                case .command(let sql): try raw.sendCommand(sql)
                case .prepared: try raw.sendPrepared(name: statement!.name, bindings: statement!.bindings)
                }
            }
            try raw.pipelineSync()
            for _ in items {
                results.append(raw.nextPipelineResult().map { $0.rows() })
            }
            guard raw.readPipelineSync() else { throw StoreError.unavailable(raw.errorMessage) }
            try raw.exitPipelineMode()
        } catch {
            // A pipeline cut short leaves the connection in an unknown state: the pool drops it.
            raw.abandon()
            lastError = error
            throw error
        }
        if let failure = firstFailure(in: results) { lastError = failure }
        return results
    }

    /// The error of the first statement that failed (not one skipped after it).
    private func firstFailure(in results: [Result<[PGRow], StoreError>]) -> StoreError? {
        for case .failure(let error) in results {
            if case .queryFailed(sqlState: "25P02", _) = error { continue }
            return error
        }
        return nil
    }
}
