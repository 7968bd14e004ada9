import ChatProtocol
import MLS

extension ChatClient {
    /// What the device keeps of a conversation it belongs to.
    public struct ChatMembership: Sendable {
        public var group: Group
        public var kind: String
        /// The entries read so far.
        public var lastSeq: UInt64
        /// The seq from which this device may read (its interval's start).
        public var joinedAt: UInt64
        /// The signed metadata plaintext, re-encrypted on every epoch change, and its version, origin and author proof.
        var metadata: [UInt8]
        var metadataVersion: UInt64
        var metadataOrigin: ChatUUID
        var authorProof: ChatValue
        /// The snapshot's `avatarBinding`, carried into every re-encryption.
        var avatarBinding: ChatValue? = nil
        public var title: String
        /// Messages read from the log and not yet handed out by `read`.
        var unread: [Message] = []
        /// Set once this device's membership interval ended: it neither reads nor sends here any more.
        public var ended: Ending?
    }

    /// Why this device's interval in a conversation ended, and at which entry (the last it may read).
    public enum Ending: Sendable, Equatable, CustomStringConvertible {
        /// A commit removed this device's leaf: its account left, a device removed it, or its leaf was
        /// replaced (the new leaf comes with a Welcome).
        case removed(seq: UInt64)
        /// The conversation was closed.
        case closed(seq: UInt64)
        /// An admin started a new generation holding only the admin's leaf: this device asks for a leaf
        /// again (`requestLeaf`) and joins from the Welcome.
        case reset(seq: UInt64)

        public var seq: UInt64 {
            switch self {
            case .removed(let seq), .closed(let seq), .reset(let seq): seq
            }
        }

        public var description: String {
            switch self {
            case .removed(let seq): "removed at #\(seq)"
            case .closed(let seq): "closed at #\(seq)"
            case .reset(let seq): "reset at #\(seq): ask for a leaf again"
            }
        }
    }

    /// A decrypted application message.
    public struct Message: Sendable, Equatable {
        public let seq: UInt64
        public let senderDID: String
        public let senderDevice: ChatUUID
        public let text: String
        /// An encrypted image the message carries (`open` fetches and decrypts it).
        public internal(set) var attachment: ChatAttachment? = nil
    }

    /// The membership this device may act in: one it holds whose interval has not ended.
    func current(_ conversation: ChatUUID) throws -> ChatMembership {
        guard let membership = conversations[conversation] else { throw MLSClientError.notAMember(conversation.description) }
        if let ended = membership.ended { throw MLSClientError.notAMember("\(conversation) (\(ended))") }
        return membership
    }
}

extension Group {
    /// The leaves of chat devices, whose BasicCredential identity is exactly `did#deviceId` (CHAT.md §4).
    func chatLeaves() -> [(did: String, device: ChatUUID, leaf: UInt32)] {
        members.compactMap { member in
            guard case .basic(let identity) = member.credential,
                  let hash = identity.lastIndex(of: UInt8(ascii: "#")),
                  let device = ChatUUID(String(decoding: identity[(hash + 1)...], as: UTF8.self)) else { return nil }
            return (String(decoding: identity[..<hash], as: UTF8.self), device, member.leafIndex)
        }
    }

    /// The leaf index of `did`'s device `device`, if it holds one.
    func leafIndex(did: String, device: ChatUUID) -> UInt32? {
        chatLeaves().first { $0.did == did && $0.device == device }?.leaf
    }
}
