import DeliveryStore

/// `blue.catbird.mls.defs#messageView`.
struct MessageView: Codable, Sendable {
    var id: String
    var convoId: String
    var sender: String
    var ciphertext: ATBytes?
    var epoch: Int64
    var seq: Int64
    var createdAt: String
    var messageType: String
    /// Thin mode only: the declared SHA-256 (hex) and size of the ciphertext the client stores.
    var contentHash: String?
    var size: Int?

    init(_ row: MessageRow) {
        id = row.msgID
        convoId = row.convoID
        sender = row.senderDID
        ciphertext = row.ciphertext.map(ATBytes.init)
        epoch = row.epoch
        seq = row.seq
        createdAt = Timestamp.rfc3339(row.createdAt)
        messageType = row.kind.rawValue
        if let hash = row.contentHash, row.ciphertext == nil {
            contentHash = Hex.encode(hash)
            size = row.size
        }
    }
}
