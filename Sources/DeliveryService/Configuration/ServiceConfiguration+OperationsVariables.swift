extension ServiceConfiguration {
    /// Logs and metrics.
    static let operationsVariables: [EnvironmentVariable] = [
        EnvironmentVariable(
            "LOG_LEVEL", .operations, default: .value("info"), example: "warning",
            meaning: "`debug`, `info`, `warning` or `error`. The caller's DID is logged only at `debug`; ciphertext, "
                + "tokens and keys never.",
            guards: "Logs as a record of who talks to whom: identities stay out of them unless debugging."
        ) { value, config throws(ConfigurationError) in
            guard let name = value.string else { return }
            guard let level = Log.Level(name: name) else { throw value.refusal("expected debug, info, warning or error") }
            config.logLevel = level
        },
        EnvironmentVariable(
            "METRICS_TOKEN", .operations, default: .none("`/metrics` open to anyone who can connect"), secret: true,
            example: "s3cret",
            meaning: "When set, `/metrics` wants `Authorization: Bearer <token>`.",
            guards: "Request rates, errors and pool use read by strangers when the port is public."
        ) { value, config throws(ConfigurationError) in
            config.metricsToken = value.string
        },
    ]
}
