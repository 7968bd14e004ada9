import ArgumentParser
import Foundation
import MLSClient

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "State directory of this user (default $CATBIRD_MLS_DIR or ~/.catbird-mls).")
    var dir: String?

    @Option(name: .long, help: "Delivery service base URL.")
    var server: String = "http://127.0.0.1:8080"

    @Option(name: .customLong("service-did"), help: "The service's DID: the audience of service-auth tokens.")
    var serviceDID: String = "did:web:localhost"

    @Flag(name: .long, help: "Machine-readable JSON on stdout.")
    var json = false

    @Flag(name: .long, help: "No progress lines on stderr.")
    var quiet = false

    @Option(name: .long, help: "xrpc (HTTP, the default) or mqtt (the Relay protocol on the service's MQTT listener, docs/mqtt.md).")
    var transport: Transport = .xrpc

    @Option(name: .long, help: "The service's MQTT listener for --transport mqtt: mqtt://host:port or mqtts://host:port.")
    var mqtt: String = "mqtt://127.0.0.1:1883"

    enum Transport: String, ExpressibleByArgument, CaseIterable {
        case xrpc, mqtt
    }

    var directory: URL {
        if let dir { return URL(fileURLWithPath: (dir as NSString).expandingTildeInPath) }
        if let env = ProcessInfo.processInfo.environment["CATBIRD_MLS_DIR"], !env.isEmpty { return URL(fileURLWithPath: env) }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".catbird-mls")
    }

    var store: MLSClientStore { MLSClientStore(directory: directory) }

    func apiClient(identity: MLSClientIdentity) throws -> MLSAPIClient {
        MLSAPIClient(configuration: .init(baseURL: server, serviceDID: serviceDID),
                     tokenProvider: try identity.tokenProvider(serviceDID: serviceDID))
    }

    /// The MQTT conversation client for the identity in `--dir` (`--transport mqtt`).
    func relayClient() throws -> MLSRelayClient {
        let store = self.store
        let quiet = self.quiet
        let configuration = try MLSRelayConfiguration(url: mqtt, serviceDID: serviceDID)
        return try MLSRelayClient(store: store, identity: try store.loadIdentity(), configuration: configuration,
                                  progress: { line in if !quiet { Output.progress(line) } })
    }

    /// Refuses a command that has no MQTT form.
    func requireXRPC(_ command: String) throws {
        if transport == .mqtt { throw ValidationError("\(command) has no MQTT form; use --transport xrpc") }
    }

    /// The conversation client for the identity in `--dir`.
    func client() throws -> MLSConversationClient {
        let store = self.store
        let identity = try store.loadIdentity()
        let quiet = self.quiet
        return try MLSConversationClient(api: try apiClient(identity: identity), store: store, identity: identity,
                                         progress: { line in if !quiet { Output.progress(line) } })
    }
}
