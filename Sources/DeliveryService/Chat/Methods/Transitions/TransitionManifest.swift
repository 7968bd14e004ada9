import ChatProtocol

/// A commit's `#transitionManifest`, read: the participant changes and the leaf changes it
/// declares (each `removeLeaf` a device whose leaf the commit removes, each `addLeafByRecovery` a
/// device it adds), and the Welcome of a recovery's fulfilment. The service checks that the
/// commit does exactly what the manifest says (`InvalidLeaveManifest`, `InvalidWelcomeMapping`).
struct TransitionManifest {
    struct Device: Hashable {
        var did: String
        var deviceID: ChatUUID
    }

    var participantChanges: [ChatRoster.Change]
    var removals: [Device]
    /// `#addLeafByRecovery` members, as signed.
    var additions: [ChatValue]
    var welcomeBundle: ChatValue?
    var leafRecoveryRequestID: ChatUUID?

    init(_ manifest: ChatValue) throws {
        participantChanges = try (manifest["participantChanges"]?.array ?? []).map(ChatRoster.Change.init)
        removals = []
        additions = []
        for change in manifest["leafChanges"]?.array ?? [] {
            switch change.type {
            case ChatSchema.typePrefix + "removeLeaf":
                guard let did = change["userDid"]?.text, let device = change["deviceId"]?.uuid else {
                    throw ChatRefusal(.invalidRequest, "incomplete removeLeaf")
                }
                removals.append(Device(did: did, deviceID: device))
            case ChatSchema.typePrefix + "addLeafByRecovery":
                additions.append(change)
            default:
                throw ChatRefusal(.invalidRequest, "unknown leaf change")
            }
        }
        guard Set(removals).count == removals.count else { throw ChatRefusal(.invalidLeaveManifest, "a device is removed twice") }
        welcomeBundle = manifest["welcomeBundle"]
        leafRecoveryRequestID = manifest["leafRecoveryRequestId"]?.uuid
    }

    /// Nothing about a recovery: no addition, no Welcome, no request named.
    var namesNoRecovery: Bool { additions.isEmpty && welcomeBundle == nil && leafRecoveryRequestID == nil }
}
