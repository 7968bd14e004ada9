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

    init(_ row: MessageRow) {
        id = row.msgID
        convoId = row.convoID
        sender = row.senderDID
        ciphertext = row.ciphertext.map(ATBytes.init)
        epoch = row.epoch
        seq = row.seq
        createdAt = Timestamp.rfc3339(row.createdAt)
        messageType = row.kind.rawValue
    }
}
