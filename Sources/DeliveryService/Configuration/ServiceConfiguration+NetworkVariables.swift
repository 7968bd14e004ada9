import Basics
import HTTP

extension ServiceConfiguration {
    /// Network and TLS; read first, since SERVICE_ENDPOINT and MAX_UPLOADS default from them.
    static let networkVariables: [EnvironmentVariable] = [
        EnvironmentVariable(
            "HOST", .network, default: .value("127.0.0.1"), example: "0.0.0.0",
            meaning: "Address the HTTP (and MQTT) listener binds: a numeric IPv4 or IPv6 address, or `localhost`.",
            guards: "Exposure to the network: by default only the local host (a reverse proxy in front) can connect."
        ) { value, config throws(ConfigurationError) in
            guard let host = value.string else { return }
            guard EnvironmentValue.isListenAddress(host) else {
                throw value.refusal("expected a numeric IPv4 or IPv6 address, or localhost")
            }
            config.http.host = host
        },
        EnvironmentVariable(
            "PORT", .network, default: .value("8080"), example: "9000",
            meaning: "TCP port of the HTTP listener (`0`: an ephemeral port, logged at start-up).",
            guards: "Two services on one port: a port already taken stops the start with the bind error."
        ) { value, config throws(ConfigurationError) in
            if let port = try value.integer(in: 0...65_535) { config.http.port = port }
        },
        EnvironmentVariable(
            "WORKER_THREADS", .network, default: .value("32"), example: "4",
            meaning: "Threads for handlers that block on the database or the network (the I/O loops are separate).",
            guards: "Unbounded threads: work beyond them waits in a queue; streamed bodies may hold at most "
                + "`MAX_UPLOADS` of them."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...1024) { config.http.workerThreads = count }
        },
        EnvironmentVariable(
            "TLS_CERT_FILE", .network, default: .none("plain HTTP"), example: "/c.pem",
            meaning: "PEM certificate chain; with `TLS_KEY_FILE` (both or neither) the service terminates TLS 1.2+ "
                + "itself (ALPN http/1.1), on HTTP and MQTT. SIGHUP re-reads both files; on error the old pair stays.",
            guards: "Tokens and metadata read on the path. Half a pair refuses the start instead of serving plain HTTP."
        ) { value, config throws(ConfigurationError) in
            switch (value.string, value.companion("TLS_KEY_FILE")) {
            case (let certificate?, let key?):
                config.http.tls = HTTPServerTLSConfiguration(certificateChainFile: certificate, privateKeyFile: key)
            case (_?, nil):
                throw ConfigurationError("TLS_KEY_FILE", value: nil, "not set, but TLS_CERT_FILE is: set both to serve TLS, or neither")
            case (nil, _?):
                throw ConfigurationError("TLS_CERT_FILE", value: nil, "not set, but TLS_KEY_FILE is: set both to serve TLS, or neither")
            case (nil, nil):
                config.http.tls = nil
            }
        },
        EnvironmentVariable(
            "TLS_KEY_FILE", .network, default: .none("plain HTTP"), example: "/k.pem",
            meaning: "PEM private key of `TLS_CERT_FILE` (read with it).",
            guards: "As `TLS_CERT_FILE`."
        ) { _, _ throws(ConfigurationError) in
            // Read as the other half of TLS_CERT_FILE's pair.
        },
        EnvironmentVariable(
            "TRUSTED_PROXIES", .network, default: .none("no proxy trusted"), example: "10.0.0.0/8, ::1",
            meaning: "Comma-separated IP addresses or CIDRs of reverse proxies. Only from these peers is "
                + "`X-Forwarded-For` believed (its right-most untrusted entry is the client), and they are exempt "
                + "from `MAX_CONNECTIONS_PER_IP`.",
            guards: "A client choosing its own rate-limit bucket by forging `X-Forwarded-For`; a proxy carrying many "
                + "clients being cut at one address's connection allowance."
        ) { value, config throws(ConfigurationError) in
            guard let text = value.string else { return }
            do { config.rateLimits.trustedProxies = try TrustedProxies(parsing: text) } catch {
                throw value.refusal("expected comma-separated IP addresses or CIDRs")
            }
            let proxies = config.rateLimits.trustedProxies
            config.http.exemptFromConnectionLimit = { peer in IPAddress(peer).map(proxies.isTrusted) ?? false }
        },
        EnvironmentVariable(
            "MAX_CONNECTIONS", .network, default: .value("4096"), example: "10",
            meaning: "Open connections, HTTP, WebSocket and MQTT together; more are refused (HTTP: 503) and closed.",
            guards: "File-descriptor and memory exhaustion by a connection flood."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...1_000_000) { config.http.maxConnections = count }
        },
        EnvironmentVariable(
            "MAX_CONNECTIONS_PER_IP", .network, default: .value("64"), example: "7",
            meaning: "Open connections per peer address (an IPv6 peer's /64 counts as one; `TRUSTED_PROXIES` are "
                + "exempt), MQTT included; more are refused (HTTP: 503) and closed. `0`: no limit.",
            guards: "One address holding every connection slot."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 0...1_000_000) { config.http.maxConnectionsPerIP = count }
        },
        EnvironmentVariable(
            "HEADER_READ_TIMEOUT", .network, default: .value("10"), example: "1.5",
            meaning: "Seconds to receive a request's complete head (at most 16 KiB; larger is 431).",
            guards: "Slowloris: connections held open by a head sent a byte at a time."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.seconds() { config.http.headerReadTimeout = seconds }
        },
        EnvironmentVariable(
            "BODY_READ_TIMEOUT", .network, default: .value("30"), example: "2",
            meaning: "Seconds to receive a buffered body once its head arrived; for a body streamed to a worker, the "
                + "longest silence between its bytes.",
            guards: "Slow bodies holding a connection (408 and closed)."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.seconds() { config.http.bodyReadTimeout = seconds }
        },
        EnvironmentVariable(
            "BODY_MIN_RATE", .network, default: .value("4096"), example: "100",
            meaning: "Bytes per second a streamed body (uploadBlob, any authenticated body over 64 KiB or chunked) "
                + "must average after its first `BODY_READ_TIMEOUT` seconds; else 408 and closed. `0`: no minimum.",
            guards: "An upload kept alive by a byte now and then while a worker waits on it."
        ) { value, config throws(ConfigurationError) in
            if let rate = try value.integer(in: 0...(1 << 30)) { config.http.streamedBodyMinimumRate = rate }
        },
        EnvironmentVariable(
            "BODY_STREAM_TIMEOUT", .network, default: .value("900"), example: "120",
            meaning: "Seconds a streamed body may take in all (else 408 and closed); time the server itself holds "
                + "the body back is not counted.",
            guards: "A worker held by one upload without end, however fast it started."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.seconds() { config.http.streamedBodyTimeout = seconds }
        },
        EnvironmentVariable(
            "IDLE_TIMEOUT", .network, default: .value("60"), example: "5",
            meaning: "Seconds a keep-alive connection may sit idle between requests.",
            guards: "Connections parked forever."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.seconds() { config.http.idleTimeout = seconds }
        },
        EnvironmentVariable(
            "SHUTDOWN_GRACE_PERIOD", .network, default: .value("10"), example: "3",
            meaning: "Seconds SIGTERM (or SIGINT) lets in-flight requests finish before the service closes the "
                + "database and exits 0.",
            guards: "Requests cut off mid-transaction by a deploy; a shutdown that never ends."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.seconds() { config.http.shutdownGracePeriod = seconds }
        },
    ]
}

extension EnvironmentValue {
    /// What the HTTP server can bind: `localhost` or a numeric address, without a port.
    static func isListenAddress(_ host: String) -> Bool {
        if host == "localhost" { return true }
        guard let address = IPAddress(Substring(host)) else { return false }
        // IPAddress also reads `a.b.c.d:port` and `[v6]:port`, which are not addresses to bind.
        return address.isIPv4 ? !host.contains(":") : !host.contains("]:")
    }
}
