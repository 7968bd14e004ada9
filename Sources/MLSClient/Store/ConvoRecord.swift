/// What the client remembers about a conversation besides the MLS state.
public struct ConvoRecord: Codable, Sendable, Equatable {
    public var convoId: String
    public var name: String?
    /// The highest seq processed; reading resumes after it.
    public var lastSeq: Int64
    /// msgIds this client sent (it cannot decrypt its own application messages).
    public var sentMessageIds: [String]
    /// False once this member was removed, left, or lost its state.
    public var active: Bool
    /// How many transcript entries `unread` has already handed out.
    public var shownEntries: Int?
    /// Hex digests of the latest group messages taken in over MQTT, whose QoS 1 is at-least-once:
    /// a message delivered again (its PUBACK lost with the connection) is skipped, not decrypted
    /// twice (which would fail as an already consumed generation).
    public var receivedDigests: [String]?
    static let receivedMemory = 1024

    /// Whether `digest` was taken in before; remembers it (the newest `receivedMemory`).
    mutating func takeIn(digest: String) -> Bool {
        var digests = receivedDigests ?? []
        guard !digests.contains(digest) else { return false }
        digests.append(digest)
        if digests.count > Self.receivedMemory { digests.removeFirst(digests.count - Self.receivedMemory) }
        receivedDigests = digests
        return true
    }

    public init(convoId: String, name: String? = nil, lastSeq: Int64 = 0, sentMessageIds: [String] = [], active: Bool = true) {
        self.convoId = convoId
        self.name = name
        self.lastSeq = lastSeq
        self.sentMessageIds = sentMessageIds
        self.active = active
    }
}

/// One line of a conversation's local transcript: a decrypted message or a membership event.
public struct ChatEntry: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case message
        case event
    }

    public var kind: Kind
    public var seq: Int64?
    public var epoch: Int64
    public var sender: String
    public var text: String
    public var createdAt: String?
    /// Sent by this client.
    public var own: Bool

    public init(kind: Kind, seq: Int64?, epoch: Int64, sender: String, text: String, createdAt: String? = nil, own: Bool = false) {
        self.kind = kind
        self.seq = seq
        self.epoch = epoch
        self.sender = sender
        self.text = text
        self.createdAt = createdAt
        self.own = own
    }
}
