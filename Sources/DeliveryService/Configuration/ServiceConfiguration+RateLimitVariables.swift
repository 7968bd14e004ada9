extension ServiceConfiguration {
    /// Rate limits.
    static let rateLimitVariables: [EnvironmentVariable] = [
        EnvironmentVariable(
            "RATE_LIMIT_ENABLED", .rateLimits, default: .value("1"), example: "0",
            meaning: "`0` turns every rate limit below off (benchmarks).",
            guards: "Floods of every kind, while it is `1`: keep it so in production."
        ) { value, config throws(ConfigurationError) in
            if let enabled = try value.flag() { config.rateLimits.enabled = enabled }
        },
        EnvironmentVariable(
            "RATE_LIMIT_IP", .rateLimits, default: .value("100,500"), example: "3,4",
            meaning: "Per client address (an IPv6 client's network, `RATE_LIMIT_IPV6_PREFIX`), every request "
                + "including `_health`, `did.json` and `/metrics`, before any token work.",
            guards: "A flood of junk tokens or of tokens for DIDs that must be resolved; unlimited cheap endpoints."
        ) { value, config throws(ConfigurationError) in
            try value.rateLimitRule { config.rateLimits.perIP = $0 }
        },
        EnvironmentVariable(
            "RATE_LIMIT_IPV6_PREFIX", .rateLimits, default: .value("64"), example: "48",
            meaning: "IPv6 clients share the per-IP buckets of their network of this prefix length (32–128). Set 56 "
                + "or 48 if attackers rotate within wider networks, at the cost of sharing buckets with a provider's "
                + "other customers.",
            guards: "Rotating source addresses within one's own /64 (RFC 4291, RFC 8981) for a fresh bucket per request."
        ) { value, config throws(ConfigurationError) in
            if let bits = try value.integer(in: 32...128) { config.rateLimits.ipv6Prefix = bits }
        },
        EnvironmentVariable(
            "RATE_LIMIT_DID_RESOLUTION", .rateLimits, default: .value("2,30"), example: "1,3",
            meaning: "Per client address: requests whose token names a DID with no cached key, so that its document "
                + "must be fetched first. Known users spend nothing from it.",
            guards: "Random did:plc values from one client, each costing a directory fetch: past it, 429 before any "
                + "fetch."
        ) { value, config throws(ConfigurationError) in
            try value.rateLimitRule { config.rateLimits.perIPResolution = $0 }
        },
        EnvironmentVariable(
            "RATE_LIMIT_SEND", .rateLimits, default: .value("20,100"), example: "1,2",
            meaning: "Per caller DID: `sendMessage`, `uploadBlob`.",
            guards: "One account monopolising workers and the database with messages."
        ) { value, config throws(ConfigurationError) in
            try value.rateLimitRule { config.rateLimits.perDID[.send] = $0 }
        },
        EnvironmentVariable(
            "RATE_LIMIT_READ", .rateLimits, default: .value("50,300"), example: "off",
            meaning: "Per caller DID: queries and every method not in another class.",
            guards: "A flood of reads starving sends (each class has its own bucket)."
        ) { value, config throws(ConfigurationError) in
            try value.rateLimitRule { config.rateLimits.perDID[.read] = $0 }
        },
        EnvironmentVariable(
            "RATE_LIMIT_KEY_PACKAGES", .rateLimits, default: .value("5,50"), example: "5/s,6",
            meaning: "Per caller DID: `publishKeyPackage(s)`, `getKeyPackages`.",
            guards: "KeyPackage validation (signatures) and the KeyPackage table as a CPU and storage sink."
        ) { value, config throws(ConfigurationError) in
            try value.rateLimitRule { config.rateLimits.perDID[.keyPackages] = $0 }
        },
        EnvironmentVariable(
            "RATE_LIMIT_MEMBERSHIP", .rateLimits, default: .value("5,50"), example: "7,8",
            meaning: "Per caller DID: `createConvo`, `addMembers`, `removeMember`, `commitGroupChange`, `leaveConvo`, "
                + "`processExternalCommit`, `updateGroupInfo`.",
            guards: "Commit validation, the dearest work the service does, repeated without end by one account."
        ) { value, config throws(ConfigurationError) in
            try value.rateLimitRule { config.rateLimits.perDID[.membership] = $0 }
        },
        EnvironmentVariable(
            "RATE_LIMIT_PUSH_REGISTRATION", .rateLimits, default: .value("1,20"), example: "2,3",
            meaning: "Per caller DID: `registerDeviceToken`, `unregisterDeviceToken`.",
            guards: "Endpoint checks (a DNS lookup each) and token churn driven by one account."
        ) { value, config throws(ConfigurationError) in
            try value.rateLimitRule { config.rateLimits.perDID[.pushRegistration] = $0 }
        },
        EnvironmentVariable(
            "RATE_LIMIT_SUBSCRIBE", .rateLimits, default: .value("20,200"), example: "2,10",
            meaning: "Per caller DID: MQTT SUBSCRIBE and UNSUBSCRIBE, one token per Topic Filter examined (a filter "
                + "over it gets 0x97 in SUBACK, 0x83 in UNSUBACK). Held Welcomes count as `RATE_LIMIT_MEMBERSHIP`, sync "
                + "barriers as `RATE_LIMIT_READ`.",
            guards: "Subscription floods, each filter a membership query, from connections of one account."
        ) { value, config throws(ConfigurationError) in
            try value.rateLimitRule { config.rateLimits.perDID[.subscribe] = $0 }
        },
    ]
}
