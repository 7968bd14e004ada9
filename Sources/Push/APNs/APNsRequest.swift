import Foundation
import JSON

/// One APNs request ("Sending notification requests to APNs"): `POST /3/device/<token>` with the
/// `apns-*` headers and a JSON payload of at most 4096 bytes.
public struct APNsRequest: Sendable, Equatable {
    /// The largest payload APNs accepts for a notification.
    public static let maxPayload = 4096

    public var path: String
    /// Header fields besides authorization, in the order sent.
    public var headers: [(String, String)]
    public var payload: [UInt8]

    public static func == (lhs: APNsRequest, rhs: APNsRequest) -> Bool {
        lhs.path == rhs.path && lhs.payload == rhs.payload
            && lhs.headers.map(\.0) == rhs.headers.map(\.0) && lhs.headers.map(\.1) == rhs.headers.map(\.1)
    }

    /// A `mutable-content` alert, so that the app's Notification Service Extension decrypts the
    /// ciphertext and shows it in place of the generic line.
    struct APS: Encodable {
        struct Alert: Encodable { var body: String }
        var alert: Alert
        var mutableContent = 1
        var sound = "default"

        enum CodingKeys: String, CodingKey {
            case alert, sound
            case mutableContent = "mutable-content"
        }
    }

    /// - Parameters: `topic` the app's bundle id (APNS_TOPIC), `priority` 10 (now) or 5 (when
    ///   convenient for the device).
    public init(notification: PushNotification, deviceToken: String, topic: String, priority: Int) throws {
        path = "/3/device/" + deviceToken
        payload = try notification.fitting(Self.maxPayload) { withCiphertext in
            var fields = notification.fields(withCiphertext: withCiphertext)
            fields.aps = APS(alert: .init(body: notification.alertBody))
            return try StrictJSON.encode(fields)
        }
        let expiration = Int64(notification.createdAt) + Int64(notification.timeToLive)
        headers = [
            ("apns-push-type", "alert"),
            ("apns-topic", topic),
            ("apns-priority", String(notification.isUrgent ? priority : 5)),
            ("apns-expiration", String(expiration)),
            ("apns-collapse-id", notification.collapseKey),
        ]
    }
}
