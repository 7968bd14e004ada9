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
    ]
}
