import Basics
import DeliveryStore
import Lexicon

extension MessageView {
    /// A stored message; a thin-mode one carries its declared hash (hex) and size instead of the ciphertext.
    init(_ row: MessageRow) {
        let declaredHash = row.ciphertext == nil ? row.contentHash : nil
        self.init(id: row.msgID, convoId: row.convoID, sender: row.senderDID, ciphertext: row.ciphertext, epoch: row.epoch,
                  seq: row.seq, createdAt: Timestamp.rfc3339(row.createdAt), messageType: row.kind.rawValue,
                  contentHash: declaredHash.map(Hex.encode), size: declaredHash == nil ? nil : row.size)
    }
}
