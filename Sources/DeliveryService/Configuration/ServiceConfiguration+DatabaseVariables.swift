extension ServiceConfiguration {
    /// Database and storage.
    static let databaseVariables: [EnvironmentVariable] = [
        EnvironmentVariable(
            "DATABASE_URL", .database,
            default: .required(problem: "not set: a libpq connection string is required"), secret: true,
            example: "postgres://other.invalid/db",
            meaning: "libpq connection string (`postgres://user:password@host/db`, or `key=value` pairs). "
                + "`make run` without it uses the checkout's own cluster. Never logged or echoed. For a Patroni "
                + "cluster name every node and `target_session_attrs=read-write` (`postgres://u:p@db1,db2,db3/db?"
                + "target_session_attrs=read-write`): libpq keeps the one that takes writes. Unless the string "
                + "sets them, connections use `connect_timeout=2` (per host), keepalives after 5 s idle every 1 s, "
                + "3 probes, and `tcp_user_timeout=5000`.",
            guards: "A service started without its store. A 2xx means committed in this database. A database "
                + "host that vanished without a reset holding connections for minutes (docs/operations.md, "
                + "\"High availability\")."
        ) { value, config throws(ConfigurationError) in
            if let url = value.string { config.database.url = url }
        },
        EnvironmentVariable(
            "DATABASE_POOL_SIZE", .database, default: .value("16"), example: "3",
            meaning: "PostgreSQL connections the service keeps open (each sendMessage batch lane holds one while it "
                + "runs).",
            guards: "Exhausting PostgreSQL's `max_connections`: a node never opens more than this, however many "
                + "clients it serves (the nodes' pools together must fit)."
        ) { value, config throws(ConfigurationError) in
            if let size = try value.integer(in: 1...1000) { config.database.poolSize = size }
        },
        EnvironmentVariable(
            "MIGRATIONS_DIR", .database, default: .value("migrations"), example: "/m",
            meaning: "Folder of `NNNN_name.sql` files; each not yet recorded is applied at start-up, in version "
                + "order, each in its own transaction under an advisory lock (several nodes may start at once).",
            guards: "A binary running against a schema older than it expects; two nodes migrating at once."
        ) { value, config throws(ConfigurationError) in
            if let directory = value.string { config.database.migrationsDirectory = directory }
        },
        EnvironmentVariable(
            "MESSAGE_BATCH_LANES", .database, default: .value("1"), example: "4",
            meaning: "sendMessage group commit: batches that may run at once, each on its own database connection "
                + "for its share of the conversations. One lane's batch takes every message under way, cheapest "
                + "for PostgreSQL on a small machine; more lanes pay where PostgreSQL has cores for batches side by "
                + "side, and keep a conversation whose row a commit holds from delaying the other lanes' messages.",
            guards: "A commit fsync per message (one transaction takes a batch); one slow conversation delaying all."
        ) { value, config throws(ConfigurationError) in
            if let lanes = try value.integer(in: 1...64) { config.messageBatching.lanes = lanes }
        },
        EnvironmentVariable(
            "MESSAGE_BATCH_MAX", .database, default: .value("128"), example: "32",
            meaning: "Messages one sendMessage batch takes at most.",
            guards: "One transaction growing without bound under load (and its locks held as long)."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...1000) { config.messageBatching.maxBatch = count }
        },
        EnvironmentVariable(
            "BLOB_DIR", .database, default: .value(".data/blobs"), example: "/blobs",
            meaning: "Where attachment files are kept (relative to the working directory unless absolute; created at "
                + "start-up). Back it up with the database: a blob's row points at its file.",
            guards: "Attachments filling the disk the service runs from: give it a volume sized for "
                + "`BLOB_QUOTA_BYTES` per user."
        ) { value, config throws(ConfigurationError) in
            if let directory = value.string { config.blobDirectory = directory }
        },
    ]
}
