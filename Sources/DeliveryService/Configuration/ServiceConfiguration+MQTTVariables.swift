extension ServiceConfiguration {
    /// MQTT; read after the network and database groups (MQTT_WORKER_THREADS's bound).
    static let mqttVariables: [EnvironmentVariable] = [
        EnvironmentVariable(
            "MQTT_PORT", .mqtt, default: .none("no MQTT listener"), example: "1883",
            meaning: "The MQTT 5.0 listener (the Relay protocol) on this port of `HOST` (`0`: ephemeral); TLS with "
                + "the same certificate when `TLS_CERT_FILE` and `TLS_KEY_FILE` are set.",
            guards: "An open port nobody asked for: off unless set."
        ) { value, config throws(ConfigurationError) in
            config.mqttPort = try value.integer(in: 0...65_535)
        },
        EnvironmentVariable(
            "MQTT_WORKER_THREADS", .mqtt, default: .derived("the smaller of `WORKER_THREADS` and half of `DATABASE_POOL_SIZE`"),
            example: "3",
            meaning: "Threads of the relay's own (authentication, publishes, subscriptions, catch-up reads); never more "
                + "than half of `DATABASE_POOL_SIZE` (at least 1), whatever is set. Each takes its turn with one "
                + "connection's work at most two jobs at a time.",
            guards: "MQTT work holding every database connection XRPC needs, and one connection's backlog holding a "
                + "worker while others wait."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...1024) { config.relay.workerThreads = count }
        },
        EnvironmentVariable(
            "MQTT_MAX_QUEUED_JOBS", .mqtt, default: .value("64"), example: "32",
            meaning: "Packets of one connection (publishes, subscriptions) waiting for the relay workers, a SUBSCRIBE "
                + "counting one per 8 of its filters; past it (or `MQTT_MAX_QUEUED_BYTES`) the connection is not read until "
                + "half of them are done.",
            guards: "A client pipelining packets (QoS 0 publishes have no Receive Maximum) into an unbounded queue."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...1_000_000) { config.relay.maxQueuedJobs = count }
        },
        EnvironmentVariable(
            "MQTT_MAX_QUEUED_BYTES", .mqtt, default: .value("2097152"), example: "1048576",
            meaning: "Bytes of one connection's packets waiting for the relay workers (as `MQTT_MAX_QUEUED_JOBS`).",
            guards: "As `MQTT_MAX_QUEUED_JOBS`, with packets of up to 1 MiB."
        ) { value, config throws(ConfigurationError) in
            if let bytes = try value.integer(in: 1...(1 << 40)) { config.relay.maxQueuedBytes = bytes }
        },
        EnvironmentVariable(
            "MQTT_MAX_UNSENT_BYTES", .mqtt, default: .value("33554432"), example: "1048576",
            meaning: "Bytes queued for one client and not yet read by it; a delivery past it ends the connection with "
                + "DISCONNECT 0x97 (its QoS 1 messages stay in the Session). Above what the unacknowledged limits "
                + "let a Session hand out, so only QoS 0 floods meet it.",
            guards: "A subscriber reading one byte a minute while QoS 0 messages pile up for it."
        ) { value, config throws(ConfigurationError) in
            if let bytes = try value.integer(in: 65_536...(1 << 40)) { config.relay.maxUnsentBytes = bytes }
        },
        EnvironmentVariable(
            "MQTT_MAX_UNACKED_MESSAGES", .mqtt, default: .value("1000"), example: "100",
            meaning: "QoS 1 messages a Session hands its client without acknowledgements (retained values and "
                + "GroupInfos included); past it the Session reads on as acknowledgements come.",
            guards: "A client that never acknowledges making the service hold every message of its groups."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...65_535) { config.relay.maxUnackedMessages = count }
        },
        EnvironmentVariable(
            "MQTT_MAX_UNACKED_BYTES", .mqtt, default: .value("8388608"), example: "1048576",
            meaning: "Payload bytes of those unacknowledged messages (one message may pass it).",
            guards: "As `MQTT_MAX_UNACKED_MESSAGES`, with large messages."
        ) { value, config throws(ConfigurationError) in
            if let bytes = try value.integer(in: 1...(1 << 40)) { config.relay.maxUnackedBytes = bytes }
        },
        EnvironmentVariable(
            "MQTT_MAX_FILTERS_PER_SUBSCRIBE", .mqtt, default: .value("128"), example: "8",
            meaning: "Topic Filters one SUBSCRIBE or UNSUBSCRIBE may hold: one with more has every filter refused "
                + "(0x97 in SUBACK, 0x83 in UNSUBACK), counted before any is decoded. Within it a repeated filter is "
                + "one subscription, examined once and answered alike; the distinct ones are examined 8 at a time, "
                + "each group a turn of the relay workers.",
            guards: "One 1 MiB SUBSCRIBE of 24,000 filters, each a string to decode, a database query and a retained "
                + "value."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...65_535) { config.relay.maxFiltersPerSubscribe = count }
        },
        EnvironmentVariable(
            "MQTT_MAX_SUBSCRIPTIONS", .mqtt, default: .value("1000"), example: "50",
            meaning: "Subscriptions one Session holds; a new filter past it gets 0x97.",
            guards: "A Session of a million subscriptions that every announcement would scan."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...1_000_000) { config.relay.maxSubscriptions = count }
        },
        EnvironmentVariable(
            "MQTT_MAX_CLIENTS_PER_DID", .mqtt, default: .value("32"), example: "4",
            meaning: "client_ids one DID may bind (its `relay/u` list); a CONNECT binding one more gets CONNACK 0x97 "
                + "until an idle one expires (`MQTT_CLIENT_IDLE_DAYS`).",
            guards: "A `relay/u` retained value grown without end, sent to every subscriber."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...10_000) { config.relay.maxClientsPerDID = count }
        },
        EnvironmentVariable(
            "MQTT_CLIENT_IDLE_DAYS", .mqtt, default: .value("90"), example: "30",
            meaning: "Days after its last CONNECT a client_id with no Session left is unbound (it leaves its DID's "
                + "`relay/u` list and its KeyPackages' link to `relay/w`).",
            guards: "client_ids of reinstalled apps kept for ever, and the per-DID cap filled by them."
        ) { value, config throws(ConfigurationError) in
            if let days = try value.integer(in: 1...36_500) { config.relay.clientIdleDays = days }
        },
    ]
}
