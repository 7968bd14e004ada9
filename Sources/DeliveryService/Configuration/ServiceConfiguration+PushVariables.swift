import Foundation

extension ServiceConfiguration {
    /// Push (docs/push.md). Each platform is one set of variables, read by its first: all of them or
    /// none, and its options only with it.
    static let pushVariables: [EnvironmentVariable] = [
        EnvironmentVariable(
            "APNS_KEY_FILE", .push, default: .none("no APNs"), example: "/AuthKey.p8",
            meaning: "The APNs authentication key (`.p8`, a PKCS#8 P-256 key) the provider tokens are signed with. "
                + "With `APNS_KEY_ID`, `APNS_TEAM_ID` and `APNS_TOPIC` (all four or none) iOS devices can register and "
                + "are pushed over HTTP/2.",
            guards: "Pushes under a half-configured identity: a missing part refuses the start instead of every push failing."
        ) { value, config throws(ConfigurationError) in
            let parts = ["APNS_KEY_ID", "APNS_TEAM_ID", "APNS_TOPIC"].map { ($0, value.companion($0)) }
            guard let file = value.string else {
                for name in ["APNS_KEY_ID", "APNS_TEAM_ID", "APNS_TOPIC", "APNS_HOST", "APNS_CA_FILE"] where value.companion(name) != nil {
                    throw ConfigurationError("APNS_KEY_FILE", value: nil, "not set, but \(name) is: set APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID and APNS_TOPIC, or none of them")
                }
                return
            }
            for (name, part) in parts where part == nil {
                throw ConfigurationError(name, value: nil, "not set, but APNS_KEY_FILE is: set APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID and APNS_TOPIC, or none of them")
            }
            config.push.apns = PushSettings.APNs(keyFile: file, keyID: parts[0].1!, teamID: parts[1].1!, topic: parts[2].1!)
        },
        EnvironmentVariable(
            "APNS_KEY_ID", .push, default: .none("no APNs"), example: "ABC123DEFG",
            meaning: "The key's 10-character id from Apple (the provider token's `kid`).",
            guards: "As `APNS_KEY_FILE`."
        ) { value, _ throws(ConfigurationError) in
            // Read with APNS_KEY_FILE; checked here for its form.
            if let text = value.string, !Self.isAppleID(text) { throw value.refusal("expected Apple's 10-character id (A-Z, 0-9)") }
        },
        EnvironmentVariable(
            "APNS_TEAM_ID", .push, default: .none("no APNs"), example: "DEF123GHIJ",
            meaning: "The developer team's 10-character id (the provider token's `iss`).",
            guards: "As `APNS_KEY_FILE`."
        ) { value, _ throws(ConfigurationError) in
            if let text = value.string, !Self.isAppleID(text) { throw value.refusal("expected Apple's 10-character id (A-Z, 0-9)") }
        },
        EnvironmentVariable(
            "APNS_TOPIC", .push, default: .none("no APNs"), example: "blue.catbird.app",
            meaning: "The app's bundle id, sent as `apns-topic`.",
            guards: "As `APNS_KEY_FILE`."
        ) { value, _ throws(ConfigurationError) in
            if let text = value.string, text.utf8.count > 255 || !text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
                throw value.refusal("expected a bundle id")
            }
        },
        EnvironmentVariable(
            "APNS_HOST", .push, default: .none("each device's own environment: production `api.push.apple.com`, sandbox `api.sandbox.push.apple.com`"),
            example: "sandbox",
            meaning: "`production` or `sandbox` sends every device to that one of Apple's hosts; an `https://host:port` URL "
                + "to a private or test APNs host. One multiplexed HTTP/2 connection per host.",
            guards: "Sandbox tokens sent to production (and the reverse), which APNs answers BadDeviceToken."
        ) { value, config throws(ConfigurationError) in
            guard let text = value.string else { return }
            let host: PushSettings.APNs.Host
            switch text {
            case "production": host = .production
            case "sandbox": host = .sandbox
            default:
                guard let url = URLComponents(string: text), url.scheme == "https", let name = url.host, !name.isEmpty,
                      url.path.isEmpty || url.path == "/", url.query == nil else {
                    throw value.refusal("expected production, sandbox or an https://host:port URL")
                }
                host = .custom(host: name, port: url.port ?? 443)
            }
            guard config.push.apns != nil else {
                throw ConfigurationError("APNS_KEY_FILE", value: nil, "not set, but APNS_HOST is: APNs needs its key")
            }
            config.push.apns?.host = host
        },
        EnvironmentVariable(
            "APNS_CA_FILE", .push, default: .none("the system's trusted certificates"), example: "/apns-ca.pem",
            meaning: "PEM certificates to trust for the APNs host instead of the system's (a private or test host).",
            guards: "A test host's own CA trusted for anything else: it is used for the APNs host only."
        ) { value, config throws(ConfigurationError) in
            guard let file = value.string else { return }
            guard config.push.apns != nil else {
                throw ConfigurationError("APNS_KEY_FILE", value: nil, "not set, but APNS_CA_FILE is: APNs needs its key")
            }
            config.push.apns?.caFile = file
        },
        EnvironmentVariable(
            "VAPID_PRIVATE_KEY_FILE", .push, default: .none("no Web Push"), example: "/vapid.pem",
            meaning: "PEM file of the service's P-256 VAPID key (RFC 8292); browsers subscribe with its public half. "
                + "With `VAPID_SUBJECT` (both or neither) web devices can register.",
            guards: "Web Push under an unnamed sender: a push service may refuse pushes without a contact."
        ) { value, config throws(ConfigurationError) in
            switch (value.string, value.companion("VAPID_SUBJECT")) {
            case (let file?, let subject?):
                config.push.webPush = PushSettings.WebPush(privateKeyFile: file, subject: subject)
            case (_?, nil):
                throw ConfigurationError("VAPID_SUBJECT", value: nil, "not set, but VAPID_PRIVATE_KEY_FILE is: set both for Web Push, or neither")
            case (nil, _?):
                throw ConfigurationError("VAPID_PRIVATE_KEY_FILE", value: nil, "not set, but VAPID_SUBJECT is: set both for Web Push, or neither")
            case (nil, nil):
                return
            }
        },
        EnvironmentVariable(
            "VAPID_SUBJECT", .push, default: .none("no Web Push"), example: "mailto:ops@example.com",
            meaning: "A `mailto:` or `https:` URI where push services can reach the operator (the VAPID token's `sub`).",
            guards: "As `VAPID_PRIVATE_KEY_FILE`."
        ) { value, _ throws(ConfigurationError) in
            if let text = value.string, !(text.hasPrefix("mailto:") || text.hasPrefix("https://")) || text.utf8.count > 512 {
                throw value.refusal("expected a mailto: or https: URI")
            }
        },
        EnvironmentVariable(
            "FCM_SERVICE_ACCOUNT_FILE", .push, default: .none("no FCM"), example: "/fcm-account.json",
            meaning: "A Google service account key file (JSON) with FCM rights: Android devices can register, and are "
                + "pushed with FCM HTTP v1 under an OAuth 2.0 token from the account's key (cached until it expires).",
            guards: "Nothing pushed to Android while it is unset; a key that cannot be read refuses the start."
        ) { value, config throws(ConfigurationError) in
            guard let file = value.string else {
                for name in ["FCM_TOKEN_URL", "FCM_URL"] where value.companion(name) != nil {
                    throw ConfigurationError("FCM_SERVICE_ACCOUNT_FILE", value: nil, "not set, but \(name) is: FCM needs its service account")
                }
                return
            }
            config.push.fcm = PushSettings.FCM(serviceAccountFile: file)
        },
        EnvironmentVariable(
            "FCM_TOKEN_URL", .push, default: .derived("the service account's `token_uri`"), example: "https://oauth.example/token",
            meaning: "Where the service account's JWT is exchanged for an access token (a private or test host).",
            guards: "Nothing: it only replaces Google's endpoint."
        ) { value, config throws(ConfigurationError) in
            if let url = try value.httpURL() { config.push.fcm?.tokenURL = url }
        },
        EnvironmentVariable(
            "FCM_URL", .push, default: .derived("`https://fcm.googleapis.com/v1/projects/<project_id>/messages:send`"),
            example: "https://fcm.example/v1/projects/p/messages:send",
            meaning: "The FCM HTTP v1 send endpoint (a private or test host).",
            guards: "Nothing: it only replaces Google's endpoint."
        ) { value, config throws(ConfigurationError) in
            if let url = try value.httpURL() { config.push.fcm?.sendURL = url }
        },
        EnvironmentVariable(
            "PUSH_CA_FILE", .push, default: .none("the system's trusted certificates"), example: "/push-ca.pem",
            meaning: "PEM certificates to trust for Web Push endpoints and the FCM hosts instead of the system's (a test "
                + "or private push service).",
            guards: "Nothing in production, where it stays unset: real push services have publicly trusted certificates."
        ) { value, config throws(ConfigurationError) in
            config.push.caFile = value.string
        },
        EnvironmentVariable(
            "PUSH_ALLOW_PRIVATE", .push, default: .value("0"), example: "1",
            meaning: "`1` lets Web Push endpoints resolve to loopback and private addresses (tests only).",
            guards: "Server-side request forgery: an endpoint is a URL any user chooses, and the service POSTs to it. "
                + "Endpoints must be https and resolve to public addresses only (checked at registration and at every push; "
                + "redirects are never followed)."
        ) { value, config throws(ConfigurationError) in
            if let allow = try value.flag() { config.push.allowPrivateEndpoints = allow }
        },
        EnvironmentVariable(
            "PUSH_CONCURRENCY", .push, default: .value("64"), example: "8",
            meaning: "Pushes in flight at once on this node, all platforms together (1–4096).",
            guards: "A slow or silent push service holding without bound the threads, connections and memory of the node."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...4096) { config.push.concurrency = count }
        },
        EnvironmentVariable(
            "PUSH_TIMEOUT", .push, default: .value("10"), example: "3",
            meaning: "Seconds one request to a push service may take (connect, TLS and answer); then it is retried later.",
            guards: "A push service that never answers keeping its pushes, and the node's slots, forever."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.seconds() { config.push.timeout = seconds }
        },
        EnvironmentVariable(
            "PUSH_DEADLINE", .push, default: .value("3600"), example: "600",
            meaning: "Seconds after its event a push that could not be handed to its push service (429, 5xx, the network) "
                + "is given up. Retries back off exponentially with jitter from 1 s to 5 minutes, or as Retry-After says.",
            guards: "An outbox growing without end behind a push service that is down."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.seconds() { config.push.deadline = seconds }
        },
        EnvironmentVariable(
            "PUSH_TTL", .push, default: .value("86400"), example: "3600",
            meaning: "Seconds a push service keeps a push for a device that is off (APNs expiration, Web Push `TTL`, "
                + "FCM `ttl`), 0–2419200.",
            guards: "Stale wake-ups days later; a device that comes back fetches what it missed anyway."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.integer(in: 0...2_419_200) { config.push.timeToLive = seconds }
        },
        EnvironmentVariable(
            "PUSH_MAX_DEVICES_PER_USER", .push, default: .value("20"), example: "3",
            meaning: "Devices one DID may register for push (1–1000); more is 409 `TooManyDevices`.",
            guards: "One account fanning every message out to thousands of tokens, and filling the table."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...1000) { config.push.maxDevicesPerUser = count }
        },
    ]

    /// Apple's key and team ids: 10 characters, upper-case letters and digits.
    static func isAppleID(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x30 && $0 <= 0x39) }
    }
}
