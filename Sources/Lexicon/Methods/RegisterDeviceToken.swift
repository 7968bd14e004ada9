/// `blue.catbird.mls.registerDeviceToken` input (docs/push.md).
public struct RegisterDeviceTokenInput: Codable, Sendable, Equatable {
    public var deviceId: String
    public var pushToken: String
    /// `ios`, `android` or `web`.
    public var platform: String
    public var deviceName: String?
    /// `production` (the default) or `sandbox`: the APNs host of an ios token.
    public var pushEnvironment: String?
    /// Required for `web`.
    public var webPush: WebPushSubscription?

    public init(deviceId: String, pushToken: String, platform: String, deviceName: String? = nil,
                pushEnvironment: String? = nil, webPush: WebPushSubscription? = nil) {
        self.deviceId = deviceId
        self.pushToken = pushToken
        self.platform = platform
        self.deviceName = deviceName
        self.pushEnvironment = pushEnvironment
        self.webPush = webPush
    }
}

/// A Web Push subscription (RFC 8030 endpoint, RFC 8291 keys), as `PushManager.subscribe()` gives it.
public struct WebPushSubscription: Codable, Sendable, Equatable {
    public var endpoint: String
    /// base64url of the uncompressed P-256 point.
    public var p256dh: String
    /// base64url of the 16-byte secret.
    public var auth: String

    public init(endpoint: String, p256dh: String, auth: String) {
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }
}

/// `blue.catbird.mls.unregisterDeviceToken` input.
public struct UnregisterDeviceTokenInput: Codable, Sendable, Equatable {
    public var deviceId: String

    public init(deviceId: String) {
        self.deviceId = deviceId
    }
}

/// The output of registerDeviceToken and unregisterDeviceToken.
public struct DeviceTokenOutput: Codable, Sendable, Equatable {
    public var success: Bool

    public init(success: Bool) {
        self.success = success
    }
}
