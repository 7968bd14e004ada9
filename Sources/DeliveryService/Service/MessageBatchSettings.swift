/// Group commit of sendMessage (docs/configuration.md: MESSAGE_BATCH_LANES, MESSAGE_BATCH_MAX).
public struct MessageBatchSettings: Sendable, Equatable {
    /// Batches that may run at once, each for its own share of the conversations and on its own
    /// database connection. One by default: since no thread waits for its batch, one lane's batch
    /// holds every message under way, and on the 2-core bench box that cost PostgreSQL about 47 µs
    /// of CPU per message against about 70 for two lanes (`make bench`). More lanes pay
    /// where PostgreSQL has cores to spare for batches running side by side.
    public var lanes = 1
    /// Messages one batch takes at most.
    public var maxBatch = 128

    public init() {}
}
