import ArgumentParser
import Foundation
import HTTP
import MLS
import MLSClient

/// `init`: a new identity in --dir.
struct Init: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create this user's identity: a secp256k1 atproto key, a random did:plc and its DID document.",
        discussion: """
        Writes identity.json and did.json to --dir. With --plc, registers the DID document with a dev PLC
        directory (see dev-plc). With --did and --token, uses an existing account and a token from its PDS
        (com.atproto.server.getServiceAuth) instead of a local key.
        """)

    @OptionGroup var options: GlobalOptions

    @Option(help: "Dev PLC directory to register the DID document with, e.g. http://127.0.0.1:2582.")
    var plc: String?

    @Option(help: "Use this existing DID instead of generating one (needs --token).")
    var did: String?

    @Option(help: "A service-auth token for --did, minted by its PDS.")
    var token: String?

    @Flag(help: "Replace an existing identity (its conversations become unreadable).")
    var force = false

    @Option(help: """
        MLS cipher suite of this user's KeyPackages and groups: a name such as \
        MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519 (the Catbird app's), a decimal id, or 0x004D.
        """)
    var suite: String = MLSClientIdentity.defaultSuite.name

    func validate() throws {
        if (did == nil) != (token == nil) { throw ValidationError("--did and --token go together") }
        if did != nil, plc != nil { throw ValidationError("--plc registers a generated DID; it cannot be used with --did") }
        _ = try cipherSuite()
    }

    /// --suite as a name, a decimal id or a 0x-prefixed hex id.
    func cipherSuite() throws -> CipherSuite {
        let hex = suite.lowercased().hasPrefix("0x") ? UInt16(suite.dropFirst(2), radix: 16).flatMap(CipherSuite.init(rawValue:)) : nil
        guard let chosen = hex ?? CipherSuite(name: suite) else {
            throw ValidationError("unknown cipher suite \(suite)")
        }
        return chosen
    }

    func run() async throws {
        let store = options.store
        if store.hasIdentity, !force {
            throw ValidationError("\(options.directory.path) already has an identity (use --force to replace it)")
        }
        let identity = try MLSClientIdentity.generate(did: did, externalToken: token, suite: cipherSuite())
        try store.saveIdentity(identity)
        var document: String?
        if identity.atprotoPrivateKey != nil {
            let text = try identity.didDocument()
            try Data(text.utf8).write(to: options.directory.appendingPathComponent("did.json"))
            document = text
        }
        if let plc, let document {
            if !options.quiet { Output.progress("registering \(identity.did) with \(plc)") }
            try DevPLCRegistration.register(did: identity.did, document: document, plc: plc)
        }
        if options.json {
            struct Result: Encodable { var did: String; var directory: String; var registered: Bool }
            Output.json(Result(did: identity.did, directory: options.directory.path, registered: plc != nil))
        } else {
            Output.line(identity.did)
        }
    }
}

/// `publish-key-packages`.
struct PublishKeyPackages: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish-key-packages", abstract: "Generate KeyPackages, keep their private keys, and publish them.")

    @OptionGroup var options: GlobalOptions

    @Option(help: "How many to publish.")
    var count: Int = 10

    @Flag(name: .customLong("last-resort"),
          help: "Publish one last-resort KeyPackage instead: never consumed, handed out only when no other is left.")
    var lastResort = false

    func validate() throws {
        guard (1...1000).contains(count) else { throw ValidationError("--count must be 1...1000") }
    }

    func run() async throws {
        if lastResort {
            let output = try await options.client().publishLastResortKeyPackage()
            if options.json { Output.json(output) } else { Output.line("published a last-resort key package \(output.keyPackageHash)") }
            return
        }
        if options.transport == .mqtt {
            let published = try await options.relayClient().publishKeyPackages(count: count)
            Output.line("published \(published) key package(s) on relay/k")
            return
        }
        let output = try await options.client().publishKeyPackages(count: count)
        if options.json {
            Output.json(output)
        } else {
            Output.line("published \(output.succeeded) key package(s)" + (output.failed > 0 ? ", \(output.failed) refused" : ""))
            for error in output.errors ?? [] { Output.line("  #\(error.index): \(error.error) \(error.message ?? "")") }
        }
    }
}

/// Registering a DID document with the dev PLC (`POST /<did>`).
enum DevPLCRegistration {
    static func register(did: String, document: String, plc: String) throws {
        var base = plc
        while base.hasSuffix("/") { base.removeLast() }
        let client = HTTPClient(timeout: 10, allowPrivateAddresses: true)
        let response = try client.send(method: "POST", base + "/" + did, headers: [("Content-Type", "application/json")],
                                       body: Array(document.utf8))
        guard (200..<300).contains(response.status) else {
            throw ValidationError("the PLC directory refused the DID document: HTTP \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
    }
}
