extension ServiceConfiguration {
    /// Quotas and limits; read after the network group (MAX_UPLOADS defaults from WORKER_THREADS).
    static let limitVariables: [EnvironmentVariable] = [
        EnvironmentVariable(
            "MESSAGE_QUOTA_BYTES", .limits, default: .value("1073741824"), example: "65536",
            meaning: "What one sender's stored application messages may cost: each its ciphertext bytes (none in thin "
                + "mode) + 256. Past it sendMessage answers 413 `QuotaExceeded` until retention purges older ones.",
            guards: "One account filling the disk with messages."
        ) { value, config throws(ConfigurationError) in
            if let bytes = try value.integer(in: 1...Int(Int64.max)) { config.limits.messageQuotaBytes = Int64(bytes) }
        },
        EnvironmentVariable(
            "BLOB_QUOTA_BYTES", .limits, default: .value("1073741824"), example: "10000",
            meaning: "Bytes of attachments one user may store (every upload counts, deduplicated or not); checked from "
                + "the request head and again while the body streams (413 `QuotaExceeded`). One attachment is at most "
                + "50 MiB. The chat contract's blobs count against the same quota, their reservations included, and "
                + "prepareBlobUpload enforces at most the contract's 524288000 (`BlobQuotaExceeded`, docs/chat.md).",
            guards: "One account filling the disk with blobs."
        ) { value, config throws(ConfigurationError) in
            if let bytes = try value.integer(in: 0...Int(Int64.max)) { config.limits.blobQuotaBytes = Int64(bytes) }
        },
        EnvironmentVariable(
            "THIN_MESSAGE_MAX_BYTES", .limits, default: .value("10485760"), example: "4096",
            meaning: "The largest `size` a thin-mode sendMessage may declare (the ciphertext itself lives in the "
                + "sender's own storage).",
            guards: "Recipients told to fetch arbitrarily large objects."
        ) { value, config throws(ConfigurationError) in
            if let bytes = try value.integer(in: 1...Int(Int32.max)) { config.limits.maxExternalMessageBytes = bytes }
        },
        EnvironmentVariable(
            "MAX_CONVOS_PER_USER", .limits, default: .value("10000"), example: "12",
            meaning: "Conversations a user created and still belongs to; past it createConvo answers 409 "
                + "`TooManyConvos`. Being added by others does not count.",
            guards: "Creating conversations without end."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...10_000_000) { config.limits.maxConvosPerUser = count }
        },
        EnvironmentVariable(
            "KEY_PACKAGE_USES_PER_REQUESTER", .limits, default: .value("20"), example: "3",
            meaning: "KeyPackages of one user (its last-resort one included) that one requester's commits may add per "
                + "`KEY_PACKAGE_USE_WINDOW`; past it 429 `TooManyKeyPackageUses` with `Retry-After`.",
            guards: "One requester draining another user's KeyPackages so that no one else can add them."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...1_000_000) { config.limits.keyPackageUses.perRequester = count }
        },
        EnvironmentVariable(
            "KEY_PACKAGE_USES_PER_TARGET", .limits, default: .value("100"), example: "9",
            meaning: "One-time KeyPackages of one user that all requesters together may consume per "
                + "`KEY_PACKAGE_USE_WINDOW`; past it getKeyPackages serves the user's last-resort package instead.",
            guards: "Many requesters (Sybil accounts) draining one user's stock; it protects the target."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...1_000_000) { config.limits.keyPackageUses.perTarget = count }
        },
        EnvironmentVariable(
            "KEY_PACKAGE_USE_WINDOW", .limits, default: .value("3600"), example: "600",
            meaning: "Seconds of the sliding window of the two KeyPackage limits above.",
            guards: "As the two limits above."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.integer(in: 1...(86_400 * 30)) { config.limits.keyPackageUses.window = Double(seconds) }
        },
        EnvironmentVariable(
            "MAX_UPLOADS_PER_USER", .limits, default: .value("4"), example: "2",
            meaning: "Requests per user whose body streams to a worker at once (`uploadBlob`, and any authenticated "
                + "call with a body over 64 KiB or chunked); more are answered 429.",
            guards: "One account's slow uploads holding the workers."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...1000) { config.limits.maxUploadsPerUser = count }
        },
        EnvironmentVariable(
            "MAX_UPLOADS", .limits, default: .derived("half of `WORKER_THREADS`"), example: "6",
            meaning: "Such streamed requests in all; more are answered 503 with `Retry-After`.",
            guards: "Slow uploads of many accounts holding every worker, so that no other request is served."
        ) { value, config throws(ConfigurationError) in
            config.limits.maxUploads = try value.integer(in: 1...1024) ?? max(1, config.http.workerThreads / 2)
        },
    ]
}
