import MLS

/// Why a conversation operation failed.
public enum MLSClientError: Error, Sendable, CustomStringConvertible {
    case api(MLSAPIError)
    case mls(GroupError)
    /// No local state for the conversation (not created, joined or rejoined here).
    case unknownConvo(String)
    /// getKeyPackages returned nothing for these DIDs.
    case noKeyPackage([String])
    /// No stored KeyPackage matches any recipient of the Welcome.
    case noMatchingKeyPackage
    /// A message from an epoch after ours: commits were missed; rejoin by external commit.
    case missedEpoch(have: UInt64, got: UInt64)
    /// The server sent bytes that are not the MLS object the method promises.
    case invalidServerData(String)
    case storage(String)
    /// This member was removed from the group (or left).
    case notAMember(String)
    case invalidArgument(String)
    /// The MQTT transport: the service refused (CONNACK, SUBACK or PUBACK Reason Code and Reason
    /// String), or the connection failed.
    case relay(String)

    public var description: String {
        switch self {
        case .api(let error): "\(error)"
        case .mls(let error): "MLS: \(error)"
        case .unknownConvo(let id): "no local state for conversation \(id)"
        case .noKeyPackage(let dids): "no key package available for \(dids.joined(separator: ", "))"
        case .noMatchingKeyPackage: "the Welcome is not addressed to any key package stored here"
        case .missedEpoch(let have, let got): "missed commits (local epoch \(have), message from epoch \(got)); rejoin"
        case .invalidServerData(let what): "invalid data from the server: \(what)"
        case .storage(let what): "storage: \(what)"
        case .notAMember(let id): "no longer a member of \(id)"
        case .invalidArgument(let what): what
        case .relay(let what): "MQTT: \(what)"
        }
    }
}
