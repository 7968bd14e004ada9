/// Group commit of sendMessage from the environment (README, "Configuration").
struct MessageBatchSettings: Sendable, Equatable {
    /// MESSAGE_BATCH_LANES: batches that may run at once, each for its own share of the
    /// conversations and on its own database connection.
    var lanes = 2
    /// MESSAGE_BATCH_MAX: messages one batch takes at most.
    var maxBatch = 128

    static func fromEnvironment(_ env: [String: String]) throws(ServiceConfiguration.ConfigurationError) -> MessageBatchSettings {
        var settings = MessageBatchSettings()
        for (name, range) in [("MESSAGE_BATCH_LANES", 1...64), ("MESSAGE_BATCH_MAX", 1...1000)] {
            guard let text = env[name], !text.isEmpty else { continue }
            guard let value = Int(text), range.contains(value) else { throw .invalid(name, text) }
            if name == "MESSAGE_BATCH_LANES" { settings.lanes = value } else { settings.maxBatch = value }
        }
        return settings
    }
}
