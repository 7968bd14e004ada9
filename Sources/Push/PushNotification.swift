import Basics
import Primitives

/// What one push announces, whatever the platform (docs/push.md): the event's kind and where it
/// sits, and the stored MLS bytes when they fit. Never plaintext (the service has none), never the
/// sender, never a group name.
public struct PushNotification: Sendable, Equatable {
    /// The payload's `type`: `mlsMessage`, `mlsCommit`, `mlsWelcome`, or another registry's.
    public var kind: String
    public var convoID: String
    public var seq: Int64?
    public var epoch: Int64?
    public var messageID: String?
    /// The PrivateMessage, commit or Welcome as stored; each platform includes it only when its
    /// whole payload still fits the platform's limit, and leaves it out otherwise (the app fetches).
    public var ciphertext: [UInt8]?
    /// How long the push service should keep trying to reach the device, in seconds.
    public var timeToLive: Int
    /// Seconds since 1970 when the push is made (APNs wants an absolute expiry).
    public var createdAt: Double

    public init(kind: String, convoID: String, seq: Int64? = nil, epoch: Int64? = nil, messageID: String? = nil,
                ciphertext: [UInt8]? = nil, timeToLive: Int, createdAt: Double) {
        self.kind = kind
        self.convoID = convoID
        self.seq = seq
        self.epoch = epoch
        self.messageID = messageID
        self.ciphertext = ciphertext
        self.timeToLive = timeToLive
        self.createdAt = createdAt
    }

    /// A commit changes the group; messages and Welcomes are for the user to see now.
    public var isUrgent: Bool { kind != "mlsCommit" }

    /// The same for every push of one conversation, so that a push service keeps only the newest
    /// pending one (APNs collapse id, Web Push Topic, FCM collapse key): 32 characters of base64url
    /// of SHA-256(convoID), so that neither a long id nor its text reaches the header.
    public var collapseKey: String {
        String(Base64URLText.encode(HashAlgorithm.sha256.hash(Array(convoID.utf8))).prefix(32))
    }

    /// The generic line an alert shows until the app's extension replaces it with the decrypted text.
    var alertBody: String {
        switch kind {
        case "mlsWelcome": "New conversation"
        case "mlsCommit": "Conversation updated"
        default: "New message"
        }
    }

    /// The fields every platform carries (as the Catbird app's extension reads them: `type`,
    /// `convoId`, `messageId`, `ciphertext` in standard base64), in a fixed order; APNs adds `aps`.
    struct Fields: Encodable {
        var aps: APNsRequest.APS?
        var type: String
        var convoId: String
        var seq: Int64?
        var epoch: Int64?
        var messageId: String?
        var ciphertext: String?
    }

    func fields(withCiphertext: Bool) -> Fields {
        Fields(type: kind, convoId: convoID, seq: seq, epoch: epoch, messageId: messageID,
               ciphertext: withCiphertext ? ciphertext.map { Base64.encode($0) } : nil)
    }

    /// `build` with the ciphertext, or without it when that is over `limit` bytes (or has none).
    func fitting(_ limit: Int, _ build: (_ withCiphertext: Bool) throws -> [UInt8]) throws -> [UInt8] {
        if ciphertext != nil {
            let full = try build(true)
            if full.count <= limit { return full }
        }
        return try build(false)
    }
}
