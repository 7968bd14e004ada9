import Foundation
import MLS

extension ServiceConfiguration {
    /// The chat contract.
    static let chatVariables: [EnvironmentVariable] = [
        EnvironmentVariable(
            "CHAT_CIPHER_SUITES", .chat, default: .value("MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519"),
            example: "MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519,MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519",
            meaning: "The MLS cipher suites chat conversations and KeyPackages may use, comma-separated names (RFC 9420 "
                + "§17.1, and 0x004D). The contract's one suite is X-Wing; others are for tests, whose groups are faster "
                + "to build.",
            guards: "Groups on a suite the app cannot join."
        ) { value, config throws(ConfigurationError) in
            guard let text = value.string else { return }
            var suites: Set<UInt16> = []
            for name in text.split(separator: ",") {
                guard let suite = CipherSuite(name: name.trimmingCharacters(in: .whitespaces)) else {
                    throw value.refusal("\(name) is not a cipher suite name")
                }
                suites.insert(suite.rawValue)
            }
            guard !suites.isEmpty else { throw value.refusal("names no cipher suite") }
            config.chatCipherSuites = suites
        },
        EnvironmentVariable(
            "CHAT_RELATIONSHIP_TIMEOUT", .chat, default: .value("5"), example: "2",
            meaning: "Seconds a chat request waits, set aside and holding no worker, for the blocks, follows and chat "
                + "policies it needs to be read from the accounts' PDSes; past it the answer is 503 "
                + "`RelationshipPolicyUnavailable` with `Retry-After`. Also one account's read's whole budget (each "
                + "request of it at most 3 s, as DID documents).",
            guards: "A PDS that never answers holding a request, or a reader's thread, for long."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.seconds() { config.chatRelationships.timeout = min(seconds, 60) }
        },
        EnvironmentVariable(
            "CHAT_RELATIONSHIP_CACHE", .chat, default: .value("60"), example: "10",
            meaning: "Seconds the records read from a PDS decide createConversation, acceptConversation and leaf "
                + "recovery; sendMessage and publishTyping use them ten times as long, refreshed behind their answers. "
                + "A read that failed is remembered as DID documents' are (10 s).",
            guards: "A PDS read for every request (the service as an amplifier), and blocks outliving their removal."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.seconds() { config.chatRelationships.freshFor = seconds }
        },
        EnvironmentVariable(
            "CHAT_RELATIONSHIP_MAX_RECORDS", .chat, default: .value("10000"), example: "500",
            meaning: "Block or follow records read per account (pages of 100). Past it the listing is incomplete, "
                + "and a check it cannot decide without the rest is 503 `RelationshipPolicyUnavailable`.",
            guards: "An account with millions of records costing as many requests and as much memory."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 100...1_000_000) { config.chatRelationships.maxRecords = count }
        },
        EnvironmentVariable(
            "CHAT_TYPING_INTERVAL", .chat, default: .value("2"), example: "0.5",
            meaning: "Seconds between two typing events of one device in one conversation: a publishTyping within it "
                + "is folded into the next event, sent when the interval ends.",
            guards: "A device fanning typing events out to a group's devices as fast as it can send them."
        ) { value, config throws(ConfigurationError) in
            if let seconds = try value.seconds() { config.chatTyping.interval = min(seconds, 60) }
        },
        EnvironmentVariable(
            "CHAT_TYPING_BURST", .chat, default: .value("5"), example: "2",
            meaning: "publishTyping calls one device may make in one conversation within an interval; past them "
                + "the answer is 429 `RateLimited` with `Retry-After`.",
            guards: "Typing floods: each call is still verified and read, even when folded."
        ) { value, config throws(ConfigurationError) in
            if let count = try value.integer(in: 1...1000) { config.chatTyping.burst = count }
        },
        EnvironmentVariable(
            "CHAT_EVENT_TTL_HOURS", .chat, default: .value("24"), example: "6",
            meaning: "Hours the chat device event stream's rows are kept, when retention runs (`MESSAGE_TTL_DAYS` not 0, "
                + "whose longer time still bounds the rest). A device that was away longer pages the inventory and "
                + "subscribes from its new cursor; a stream that far behind is closed with `CursorExpired`.",
            guards: "One row per recipient device per message kept for a month: the event table dwarfing the messages."
        ) { value, config throws(ConfigurationError) in
            if let hours = try value.integer(in: 1...876_000) { config.chatEventLifetime = Double(hours) * 3600 }
        },
    ]
}
