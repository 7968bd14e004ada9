import Basics
import ChatProtocol
import Foundation
import Primitives

/// A typing indicator as the contract sends it (defs `typingEvent`): never stored, no cursor, its
/// own frame on the event stream, `{op: 1, t: "blue.catbird.chat.defs#typingEvent"}` and the event.
struct ChatTypingEvent: Sendable, Equatable {
    let typingID: ChatUUID
    let conversationID: ChatUUID
    let actorDID: String
    let actorDeviceID: ChatUUID
    let isTyping: Bool
    let expiresAt: CanonicalTimestamp

    /// The `#typingEvent` object.
    var value: ChatValue {
        .object([
            "typingId": .uuid(typingID), "conversationId": .uuid(conversationID), "actorDid": .text(actorDID),
            "actorDeviceId": .uuid(actorDeviceID), "isTyping": .bool(isTyping), "expiresAt": .text(expiresAt.description),
        ])
    }

    static let header = DAGCBOR.encode(.map(["op": .unsigned(1), "t": .text(ChatSchema.typePrefix + "typingEvent")]))

    /// The binary message a subscription sends.
    var frame: [UInt8] { Self.header + DAGCBOR.encode(value.dagCBOR(.data)) }
}

/// A typing event on its way to every node (NOTIFY `chat_typing`): the event and the devices it is
/// for, each a 16-character tag (base64url of the first 12 bytes of SHA-256 of `did device`), so
/// that 100 leaves fit PostgreSQL's 8000-byte payload with room to spare. Each node hands it to its
/// own subscriptions of those devices.
struct ChatTypingNotice: Sendable, Equatable {
    static let channel = "chat_typing"

    let event: ChatTypingEvent
    let recipients: Set<String>

    static func tag(did: String, device: ChatUUID) -> String {
        Base64.encode(Array(HashAlgorithm.sha256.hash(Array("\(did) \(device)".utf8)).prefix(12)), padding: false, alphabet: .url)
    }

    var payload: String {
        let event = event
        return ["t1", event.conversationID.description, event.typingID.description, event.isTyping ? "1" : "0",
                String(event.expiresAt.millisecondsSince1970), event.actorDID, event.actorDeviceID.description,
                recipients.sorted().joined(separator: ",")].joined(separator: " ")
    }

    init(event: ChatTypingEvent, recipients: Set<String>) {
        self.event = event
        self.recipients = recipients
    }

    init?(payload: String) {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 8, fields[0] == "t1", let conversation = ChatUUID(fields[1]), let typing = ChatUUID(fields[2]),
              fields[3] == "0" || fields[3] == "1", let millis = Int64(fields[4]), let device = ChatUUID(fields[6]) else { return nil }
        event = ChatTypingEvent(typingID: typing, conversationID: conversation, actorDID: fields[5], actorDeviceID: device,
                                isTyping: fields[3] == "1", expiresAt: CanonicalTimestamp(millisecondsSince1970: millis))
        recipients = Set(fields[7].split(separator: ",").map(String.init))
    }
}
