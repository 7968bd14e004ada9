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
        public var title: String
        /// Messages read from the log and not yet handed out by `read`.
        var unread: [Message] = []
    }

    /// A decrypted application message.
    public struct Message: Sendable, Equatable {
        public let seq: UInt64
        public let senderDID: String
        public let senderDevice: ChatUUID
        public let text: String
    }
}
