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
        let backoff = RetryBackoff()
        var generator = SystemRandomNumberGenerator()
        var retries = 0
        var restartedAfterDisconnect = false
        while true {
            let connection = try checkout()
            do {
                defer { checkin(connection) }
                return try connection.inTransaction(isolation, body)
            } catch let error as StoreError where error.isTransient && retries < maxRetries {
                retries += 1
                Thread.sleep(forTimeInterval: backoff.delay(attempt: retries, using: &generator))
            } catch StoreError.unavailable(_) where !restartedAfterDisconnect && !connection.beganTransaction {
                restartedAfterDisconnect = true
            }
        }
    }
}

extension Database {
    /// `statements` as one transaction in one round trip (`PGConnection.pipelinedTransaction`),
    /// retried like `transaction(isolation:maxRetries:_:)` after a serialization failure or
    /// deadlock, and started once more on a fresh connection if the pooled one had been closed.
    public func pipelinedTransaction(_ statements: [PGStatement], isolation: IsolationLevel = .readCommitted,
                                     maxRetries: Int = 5) throws(StoreError) -> [[PGRow]] {
        let backoff = RetryBackoff()
        var generator = SystemRandomNumberGenerator()
        var retries = 0
        var restartedAfterDisconnect = false
        while true {
            let connection = try checkout()
            do throws(StoreError) {
                defer { checkin(connection) }
                return try connection.pipelinedTransaction(statements, isolation: isolation)
            } catch where error.isTransient && retries < maxRetries {
                retries += 1
                Thread.sleep(forTimeInterval: backoff.delay(attempt: retries, using: &generator))
            } catch {
                // Nothing reached the server if the idle connection was already gone: try once more.
                guard case .unavailable = error, !restartedAfterDisconnect, !connection.sentPipeline else { throw error }
                restartedAfterDisconnect = true
            }
        }
    }
}
