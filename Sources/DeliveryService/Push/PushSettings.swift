/// Push to devices without a socket (docs/push.md): which platforms are on and with which
/// credentials, and how the outbox's workers deliver. A platform is off unless its variables are set.
public struct PushSettings: Sendable, Equatable {
    /// APNS_*: token-based APNs over HTTP/2.
    public struct APNs: Sendable, Equatable {
        /// The `.p8` file: a PKCS#8 P-256 key.
        public var keyFile: String
        /// The key's id (the JWT's `kid`) and the team's (`iss`), 10 characters each from Apple.
        public var keyID: String
        public var teamID: String
        /// The app's bundle id (`apns-topic`).
        public var topic: String
        public var host = Host.perDevice
        /// PEM certificates to trust for the host instead of the system's.
        public var caFile: String?

        /// Where pushes go: each device's own environment, one of Apple's hosts for every device, or
        /// a private or test host (`https://host:port`).
        public enum Host: Sendable, Equatable {
            case perDevice
            case production
            case sandbox
            case custom(host: String, port: Int)
        }
    }

    /// VAPID_*: Web Push with the service's P-256 key.
    public struct WebPush: Sendable, Equatable {
        /// PEM: the P-256 private key whose public half browsers subscribe with.
        public var privateKeyFile: String
        /// `mailto:` or `https:` contact (the JWT's `sub`).
        public var subject: String
    }

    /// FCM_*: FCM HTTP v1 with a service account.
    public struct FCM: Sendable, Equatable {
        public var serviceAccountFile: String
        /// Replaces the account's `token_uri`.
        public var tokenURL: String?
        /// Replaces `https://fcm.googleapis.com/v1/projects/<project>/messages:send`.
        public var sendURL: String?
    }

    public var apns: APNs?
    public var webPush: WebPush?
    public var fcm: FCM?
    /// PUSH_CA_FILE: PEM certificates trusted for Web Push endpoints and the FCM hosts instead of the
    /// system's (a test or private push service).
    public var caFile: String?
    /// PUSH_ALLOW_PRIVATE: Web Push endpoints may resolve to non-public addresses (tests only).
    public var allowPrivateEndpoints = false
    /// PUSH_CONCURRENCY: pushes in flight at once on this node, all platforms together.
    public var concurrency = 64
    /// PUSH_TIMEOUT: seconds one request to a push service may take.
    public var timeout = 10.0
    /// PUSH_DEADLINE: seconds after its event a push that could not be handed over is given up.
    public var deadline = 3600.0
    /// PUSH_TTL: seconds a push service keeps a push for a device that is off (APNs expiration, Web
    /// Push TTL, FCM ttl).
    public var timeToLive = 86_400
    /// PUSH_MAX_DEVICES_PER_USER: registered devices per DID.
    public var maxDevicesPerUser = 20

    public init() {}

    /// Whether any platform is configured: only then do messages queue pushes.
    public var enabled: Bool { apns != nil || webPush != nil || fcm != nil }
}
