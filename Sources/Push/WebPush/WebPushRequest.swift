import JSON

/// One Web Push message (RFC 8030 §5): a POST of the encrypted payload to the subscription's
/// endpoint, with how long the push service keeps it (`TTL`), how urgently the device is woken
/// (`Urgency`, §5.3) and the conversation as `Topic` (§5.4), so that a newer push of the same
/// conversation replaces one still undelivered.
public struct WebPushRequest: Sendable {
    public var endpoint: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    /// The JSON the service worker receives, before encryption.
    static func plaintext(_ notification: PushNotification) throws -> [UInt8] {
        try notification.fitting(WebPushEncryption.maxPlaintext) { withCiphertext in
            try StrictJSON.encode(notification.fields(withCiphertext: withCiphertext))
        }
    }

    public init(notification: PushNotification, endpoint: String, keys: (p256dh: [UInt8], auth: [UInt8]),
                authorization: String) throws {
        self.endpoint = endpoint
        body = try WebPushEncryption.encrypt(try Self.plaintext(notification), to: keys)
        headers = [
            ("Authorization", authorization),
            ("Content-Type", "application/octet-stream"),
            ("Content-Encoding", "aes128gcm"),
            ("TTL", String(notification.timeToLive)),
            ("Urgency", notification.isUrgent ? "high" : "normal"),
            ("Topic", notification.collapseKey),
        ]
    }
}
