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
        case .subscribe: RateLimitRule(ratePerSecond: 20, burst: 500)
        }
    }

    /// The class of a blue.catbird.mls method; every other method counts as a read.
    public init(nsid: String) {
        let prefix = "blue.catbird.mls."
        let name = nsid.hasPrefix(prefix) ? String(nsid.dropFirst(prefix.count)) : nsid
        switch name {
        case "sendMessage", "uploadBlob":
            self = .send
        case "publishKeyPackage", "publishKeyPackages", "getKeyPackages":
            self = .keyPackages
        case "createConvo", "addMembers", "removeMember", "commitGroupChange", "leaveConvo",
             "processExternalCommit", "updateGroupInfo":
            self = .membership
        case "registerDeviceToken", "unregisterDeviceToken":
            self = .pushRegistration
        default:
            self = .read
        }
    }
}
