/// Group commit of sendMessage (README, "Configuration": MESSAGE_BATCH_LANES, MESSAGE_BATCH_MAX).
public struct MessageBatchSettings: Sendable, Equatable {
    /// Batches that may run at once, each for its own share of the conversations and on its own
    /// database connection.
    public var lanes = 2
    /// Messages one batch takes at most.
    public var maxBatch = 128

    public init() {}
}
