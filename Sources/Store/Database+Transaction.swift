import Foundation

extension Database {
    /// Runs `body` in a transaction at `isolation` and commits it; any thrown error rolls back.
    ///
    /// A transaction that fails with a serialization failure (40001) or deadlock (40P01) is run
    /// again from the start, up to `maxRetries` more times, after a short jittered pause; then
    /// the error is thrown. `body` may therefore run more than once: keep side effects other
    /// than SQL out of it. A transaction that cannot start on a connection the server had closed
    /// is started once more on a fresh connection.
    public func transaction<T>(
        isolation: IsolationLevel = .readCommitted,
        maxRetries: Int = 5,
        _ body: (PGConnection) throws -> T
    ) throws -> T {
        try retrying(maxRetries: maxRetries, nothingSent: { !$0.beganTransaction }) { connection in
            try connection.inTransaction(isolation, body)
        }
    }

    /// Runs `attempt` on a pooled connection; after a serialization failure or deadlock runs it
    /// again (up to `maxRetries` times, after a jittered pause), and once more on a fresh
    /// connection if the server had closed the pooled one before `attempt` sent anything.
    private func retrying<T>(maxRetries: Int, nothingSent: (PGConnection) -> Bool,
                             _ attempt: (PGConnection) throws -> T) throws -> T {
        let backoff = RetryBackoff()
        var generator = SystemRandomNumberGenerator()
        var retries = 0
        var restartedAfterDisconnect = false
        while true {
            let connection = try checkout()
            do {
                defer { checkin(connection) }
                return try attempt(connection)
            } catch let error as StoreError where error.isTransient && retries < maxRetries {
                retries += 1
                Thread.sleep(forTimeInterval: backoff.delay(attempt: retries, using: &generator))
            } catch StoreError.unavailable(_) where !restartedAfterDisconnect && nothingSent(connection) {
                restartedAfterDisconnect = true
            }
        }
    }
}

extension Database {
    /// `statements` as one transaction in one round trip (`PGConnection.pipelinedTransaction`),
    /// retried like `transaction(isolation:maxRetries:_:)`. After a connection broke mid-pipeline
    /// it is not retried: whether the server committed is then unknown.
    public func pipelinedTransaction(_ statements: [PGStatement], isolation: IsolationLevel = .readCommitted,
                                     maxRetries: Int = 5) throws(StoreError) -> [[PGRow]] {
        try pipelinedTransaction(statements, isolation: isolation, maxRetries: maxRetries, afterCommit: []).rows
    }

    /// The same with `afterCommit` run once COMMIT succeeded (`PGConnection.pipelinedTransaction(_:isolation:afterCommit:)`).
    public func pipelinedTransaction(_ statements: [PGStatement], isolation: IsolationLevel = .readCommitted,
                                     maxRetries: Int = 5, afterCommit: [PGStatement]) throws(StoreError) -> PipelinedCommit {
        do {
            return try retrying(maxRetries: maxRetries, nothingSent: { !$0.sentPipeline }) { connection in
                try connection.pipelinedTransaction(statements, isolation: isolation, afterCommit: afterCommit)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .queryFailed(sqlState: "XX000", message: String(describing: error))
        }
    }
}
