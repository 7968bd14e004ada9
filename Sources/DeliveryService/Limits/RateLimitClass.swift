/// The groups of methods that share a per-DID budget: a flood of reads must not starve sends, and
/// membership changes (each a commit validation) are dearer than reads.
public enum RateLimitClass: String, Sendable, CaseIterable {
    case send
    case read
    case keyPackages
    case membership
    /// registerDeviceToken, unregisterDeviceToken: each may cost a DNS lookup (a Web Push endpoint)
    /// and rewrites a user's push registrations.
    case pushRegistration
    /// MQTT SUBSCRIBE and UNSUBSCRIBE, one token per Topic Filter examined (docs/mqtt.md).
    case subscribe

    /// Chosen so that a normal client never meets them.
    public var defaultRule: RateLimitRule {
        switch self {
        case .send: RateLimitRule(ratePerSecond: 20, burst: 100)
        case .read: RateLimitRule(ratePerSecond: 50, burst: 300)
        case .keyPackages: RateLimitRule(ratePerSecond: 5, burst: 50)
        case .membership: RateLimitRule(ratePerSecond: 5, burst: 50)
        case .pushRegistration: RateLimitRule(ratePerSecond: 1, burst: 20)
        case .subscribe: RateLimitRule(ratePerSecond: 20, burst: 200)
        }
    }

    /// The class of a blue.catbird.mls or blue.catbird.chat method; every other method counts as a read.
    public init(nsid: String) {
        switch nsid {
        case "blue.catbird.mls.sendMessage", "blue.catbird.mls.uploadBlob", "blue.catbird.chat.sendMessage",
             "blue.catbird.chat.publishTyping", "blue.catbird.chat.uploadBlob", "blue.catbird.chat.prepareBlobUpload":
            self = .send
        case "blue.catbird.mls.publishKeyPackage", "blue.catbird.mls.publishKeyPackages", "blue.catbird.mls.getKeyPackages",
             "blue.catbird.chat.enrollDevice", "blue.catbird.chat.replenishKeyPackages", "blue.catbird.chat.revokeDevice":
            self = .keyPackages
        case "blue.catbird.mls.createConvo", "blue.catbird.mls.addMembers", "blue.catbird.mls.removeMember",
             "blue.catbird.mls.commitGroupChange", "blue.catbird.mls.leaveConvo", "blue.catbird.mls.processExternalCommit",
             "blue.catbird.mls.updateGroupInfo",
             "blue.catbird.chat.createConversation", "blue.catbird.chat.acceptConversation", "blue.catbird.chat.submitTransition",
             "blue.catbird.chat.requestLeafRecovery", "blue.catbird.chat.requestLeave", "blue.catbird.chat.closeConversation",
             "blue.catbird.chat.requestReset", "blue.catbird.chat.activateReset":
            self = .membership
        case "blue.catbird.mls.registerDeviceToken", "blue.catbird.mls.unregisterDeviceToken":
            self = .pushRegistration
        default:
            self = .read
        }
    }
}
