/// The push service a device is reached through (docs/push.md).
public enum PushPlatform: String, Sendable, CaseIterable, Codable {
    /// Apple Push Notification service, over HTTP/2.
    case ios
    /// Firebase Cloud Messaging, HTTP v1.
    case android
    /// Web Push (RFC 8030), to the subscription's endpoint.
    case web
}

/// Which APNs host a device's token belongs to.
public enum PushEnvironment: String, Sendable, CaseIterable, Codable {
    case production
    case sandbox
}

/// A Web Push subscription's keys (RFC 8291 §2): the user agent's P-256 public key and auth secret.
public struct WebPushKeys: Sendable, Equatable {
    /// Uncompressed SEC1 point, 65 bytes.
    public var p256dh: [UInt8]
    /// 16 bytes.
    public var auth: [UInt8]

    public init(p256dh: [UInt8], auth: [UInt8]) {
        self.p256dh = p256dh
        self.auth = auth
    }
}

/// How a push service reaches one device: what its registration holds, validated on the way in.
public struct PushAddress: Sendable, Equatable {
    public var platform: PushPlatform
    /// APNs: the device token, lower-case hex; FCM: the registration token; Web Push: the endpoint URL.
    public var token: String
    /// APNs only.
    public var environment: PushEnvironment
    /// Web Push only.
    public var webPush: WebPushKeys?

    public init(platform: PushPlatform, token: String, environment: PushEnvironment = .production, webPush: WebPushKeys? = nil) {
        self.platform = platform
        self.token = token
        self.environment = environment
        self.webPush = webPush
    }
}
