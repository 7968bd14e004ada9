import ATProto
import DeliveryStore

/// Reads a conversation's log and prepares its events for sending; messageEvents carry the message
/// itself when its ciphertext is at most `inlineCiphertextLimit` bytes (thin-mode messages, which
/// have none, always), otherwise only the pointer (seq, msgId, …) for a getMessages call.
struct EventSource: Sendable {
    let store: DeliveryStore
    let inlineCiphertextLimit: Int
    /// Events read per query.
    let batchSize: Int

    func events(convoID: String, after seq: Int64) throws -> [PreparedEvent] {
        let events = try store.events(convoID: convoID, afterSeq: seq, limit: batchSize)
        let messages = try messageRows(convoID: convoID, for: events)
        return try events.map { event in
            let row = event.kind == .messageEvent ? messages[Self.messageSeq(event)] : nil
            let inline = row.flatMap { row in row.ciphertext.map({ $0.count <= inlineCiphertextLimit }) ?? true ? row : nil }
            return try PreparedEvent(event, message: inlineCiphertextLimit > 0 ? inline : nil, row: row)
        }
    }

    /// The messages the batch's messageEvents point at, by seq, in one range query: inlined in
    /// messageEvents within the limit, and the payload of MQTT deliveries.
    private func messageRows(convoID: String, for events: [ConvoEvent]) throws -> [Int64: MessageRow] {
        let seqs = events.compactMap { $0.kind == .messageEvent ? Self.messageSeq($0) : nil }
        guard let low = seqs.min(), let high = seqs.max() else { return [:] }
        let page = try store.messages(convoID: convoID, MessageQuery(sinceSeq: low - 1, limit: Int(min(1000, high - low + 1))))
        var rows: [Int64: MessageRow] = [:]
        for row in page.messages { rows[row.seq] = row }
        return rows
    }

    /// The message seq in a messageEvent's payload (`{"seq": …}`); nil if absent.
    private static func messageSeq(_ event: ConvoEvent) -> Int64 {
        struct Pointer: Decodable { var seq: Int64 }
        return (try? StrictJSON.decode(Pointer.self, from: Array(event.payload.utf8)).seq) ?? -1
    }
}
