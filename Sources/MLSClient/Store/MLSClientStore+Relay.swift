import Foundation
import Primitives

/// The MQTT transport's state in the user's directory (`relay.json`): the Relay client_id, chosen
/// once and bound by the service to this DID for good; the Session it names keeps this client's
/// subscriptions between runs.
public struct RelayClientState: Codable, Sendable, Equatable {
    public var clientID: String
}

extension MLSClientStore {
    var relayFile: URL { directory.appendingPathComponent("relay.json") }

    /// The Relay client_id of this directory, made (32 random lower-case hex digits) on first use.
    public func relayClientState() throws(MLSClientError) -> RelayClientState {
        if FileManager.default.fileExists(atPath: relayFile.path) {
            return try readJSON(RelayClientState.self, relayFile, missing: "")
        }
        let state = RelayClientState(clientID: SecureRandom.bytes(16).map { String(format: "%02x", $0) }.joined())
        try writeJSON(state, relayFile)
        return state
    }
}
