extension ServiceConfiguration {
    /// Retention.
    static let retentionVariables: [EnvironmentVariable] = [
        EnvironmentVariable(
            "MESSAGE_TTL_DAYS", .retention, default: .value("30"), example: "7",
            meaning: "Messages and their events older than this are purged, and their bytes given back to the "
                + "sender's quota; so are the chat contract's device events, completed operations and expired inventory "
                + "sessions and tickets (not its entries: docs/chat.md, \"Retention\"). `0` keeps everything.",
            guards: "Unbounded history on disk; ciphertext kept longer than clients need it."
        ) { value, config throws(ConfigurationError) in
            if let days = try value.integer(in: 0...36_500) { config.retention.ttlDays = days }
        },
        EnvironmentVariable(
            "RETENTION_KEEP_COMMIT_EPOCHS", .retention, default: .value("16"), example: "0",
            meaning: "Each conversation's last commits kept for getCommits whatever their age.",
            guards: "A member that was offline past the TTL finding no commits to catch up from."
        ) { value, config throws(ConfigurationError) in
            if let epochs = try value.integer(in: 0...1_000_000) { config.retention.keepCommitEpochs = epochs }
        },
        EnvironmentVariable(
            "RETENTION_BATCH_SIZE", .retention, default: .value("10000"), example: "500",
            meaning: "Rows per purge statement, each its own short transaction.",
            guards: "A purge holding locks (and growing WAL) for minutes."
        ) { value, config throws(ConfigurationError) in
            if let size = try value.integer(in: 1...1_000_000) { config.retention.batchSize = size }
        },
        EnvironmentVariable(
            "RETENTION_INTERVAL_SECONDS", .retention, default: .value("3600"), example: "60",
            meaning: "Seconds between retention passes (at most a week).",
            guards: "Long passes: the more often it runs, the less each pass has to purge."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.integer(in: 1...(86_400 * 7)) { config.retention.interval = Double(seconds) }
        },
    ]
}
