import ATProto
import Basics

extension ServiceConfiguration {
    /// Identity and auth.
    static let identityVariables: [EnvironmentVariable] = [
        EnvironmentVariable(
            "SERVICE_DID", .identity,
            default: .required(problem: "not set: the service's own did:web or did:plc is required (make run sets \(developmentServiceDID))"),
            example: "did:web:x.com",
            meaning: "The service's own DID, a bare `did:web` or `did:plc`. A token's audience must be it or "
                + "`<it>#atproto_mls`. `make run` alone sets `did:web:localhost`, the development DID, and the "
                + "service logs a warning whenever it runs as that.",
            guards: "Accepting tokens minted for another service: with a shared placeholder audience, a token for any "
                + "service run the same way would be accepted here."
        ) { value, config throws(ConfigurationError) in
            guard let did = value.string else { return }
            guard (try? DID(did)) != nil else { throw value.refusal("expected a bare did:web or did:plc") }
            config.auth.serviceDID = did
        },
        EnvironmentVariable(
            "SERVICE_ENDPOINT", .identity, default: .derived("`http://HOST:PORT`"), example: "https://x.com",
            meaning: "The service's public URL, published in `/.well-known/did.json` (the `#atproto_mls` entry) and "
                + "in subscription tickets' endpoint.",
            guards: "Clients (and the PDS proxy) sent to the internal bind address instead of the public name."
        ) { value, config throws(ConfigurationError) in
            let host = config.http.host
            let authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            config.serviceEndpoint = try value.httpURL() ?? "http://\(authority):\(config.http.port)"
        },
        EnvironmentVariable(
            "PLC_URL", .identity, default: .value("https://plc.directory"), example: "http://127.0.0.1:9",
            meaning: "The did:plc directory DID documents are fetched from.",
            guards: "Forged identities: the directory decides which key signs for every did:plc, so name only one "
                + "you trust."
        ) { value, config throws(ConfigurationError) in
            if let url = try value.httpURL() { config.auth.plcURL = url }
        },
        EnvironmentVariable(
            "DID_RESOLVER_ALLOW_PRIVATE", .identity, default: .value("0"), example: "1",
            meaning: "`1` lets DID resolution reach private, loopback, link-local and other special addresses. For "
                + "tests and the local walkthrough only.",
            guards: "SSRF: did:web names (or a PLC URL) pointing inside the network. Leave it `0` in production."
        ) { value, config throws(ConfigurationError) in
            if let allow = try value.flag() { config.auth.allowPrivateAddresses = allow }
        },
        EnvironmentVariable(
            "AUTH_REQUIRE_LOW_S", .identity, default: .value("1"), example: "0",
            meaning: "Refuse ECDSA token signatures with a high S value, as atproto requires.",
            guards: "Signature malleability: a second valid signature for the same token."
        ) { value, config throws(ConfigurationError) in
            if let require = try value.flag() { config.auth.requireLowS = require }
        },
        EnvironmentVariable(
            "DID_RESOLVER_THREADS", .identity, default: .value("16"), example: "5",
            meaning: "DID documents fetched at once, on the resolver's own threads; a request whose token needs a "
                + "document waits set aside, holding no worker.",
            guards: "A slow directory or did:web host occupying every thread."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...256) { config.auth.maxFetches = count }
        },
        EnvironmentVariable(
            "DID_RESOLVER_PER_HOST", .identity, default: .value("8"), example: "2",
            meaning: "DID documents fetched at once from one host (the PLC directory is one host).",
            guards: "One slow host taking every fetch slot; the service used as an amplifier against the directory."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...256) { config.auth.maxFetchesPerHost = count }
        },
        EnvironmentVariable(
            "DID_RESOLVER_QUEUE", .identity, default: .value("256"), example: "11",
            meaning: "Fetches waiting for a free slot, each at most 3 s; beyond, a request that needs one is answered "
                + "503 `ServiceUnavailable` with `Retry-After`.",
            guards: "An unbounded backlog of fetches during a flood of tokens for unknown DIDs."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...100_000) { config.auth.maxQueuedFetches = count }
        },
    ]
}
