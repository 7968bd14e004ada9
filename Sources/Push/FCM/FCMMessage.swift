import JSON

/// An FCM HTTP v1 send request (`projects.messages.send`): a data message, whose values are
/// strings, for one registration token, with Android delivery options. The data may hold at most
/// 4096 bytes (keys and values together); the ciphertext is left out when it would not fit.
struct FCMMessage: Encodable {
    static let maxData = 4096

    struct Message: Encodable {
        struct Android: Encodable {
            var priority: String
            var ttl: String
            var collapse_key: String
        }

        var token: String
        var data: [String: String]
        var android: Android
    }

    var message: Message

    /// The data of `notification`: its fields as strings.
    static func data(_ notification: PushNotification, withCiphertext: Bool) -> [String: String] {
        let fields = notification.fields(withCiphertext: withCiphertext)
        var data = ["type": fields.type, "convoId": fields.convoId]
        data["seq"] = fields.seq.map(String.init)
        data["epoch"] = fields.epoch.map(String.init)
        data["messageId"] = fields.messageId
        data["ciphertext"] = fields.ciphertext
        return data
    }

    static func size(_ data: [String: String]) -> Int {
        data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    static func body(_ notification: PushNotification, token: String) throws -> [UInt8] {
        var data = Self.data(notification, withCiphertext: true)
        if size(data) > maxData { data = Self.data(notification, withCiphertext: false) }
        let android = Message.Android(priority: notification.isUrgent ? "HIGH" : "NORMAL", ttl: "\(notification.timeToLive)s",
                                      collapse_key: notification.collapseKey)
        return try StrictJSON.encode(FCMMessage(message: Message(token: token, data: data, android: android)))
    }
}
