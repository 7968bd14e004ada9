import ATProto
import DeliveryStore

/// Reads a conversation's log and prepares its events for sending; messageEvents carry the message
/// itself when its ciphertext is at most `inlineCiphertextLimit` bytes (thin-mode messages, which
/// have none, always), otherwise only the pointer (seq, msgId, …) for a getMessages call. Each
/// prepared event keeps its stored message too (what MQTT subscribers receive).
struct EventSource: Sendable {
    let store: DeliveryStore
    let inlineCiphertextLimit: Int
    /// Events read per query.
    let batchSize: Int
    /// Recent events, shared by every reader of this process.
    let cache = EventCache()

    /// Up to `batchSize` events after `seq`, from the cache when it holds the next one, else from
    /// the log (and then kept). Fewer than `batchSize` come from the cache only when they reach what
    /// this node heard announced (`EventCache.heard`); the log may hold more that nobody announced
    /// yet, which the hub offers when its news comes.
    func events(convoID: String, after seq: Int64) throws -> [PreparedEvent] {
        if let cached = cache.events(convoID: convoID, after: seq, limit: batchSize) { return cached }
        return try logEvents(convoID: convoID, after: seq)
    }

    /// Up to `batchSize` events after `seq` from the log itself, never the cache (which may end
    /// before the log does), and then kept: for a reader that must see everything committed before
    /// it asked (a Relay sync barrier, docs/mqtt.md).
    func logEvents(convoID: String, after seq: Int64) throws -> [PreparedEvent] {
        let prepared = try store.eventsWithMessages(convoID: convoID, afterSeq: seq, limit: batchSize).map { logged in
            let inline = logged.message.flatMap { row in row.ciphertext.map({ $0.count <= inlineCiphertextLimit }) ?? true ? row : nil }
            return try PreparedEvent(logged.event, message: inlineCiphertextLimit > 0 ? inline : nil, row: logged.message)
        }
        cache.store(convoID: convoID, after: seq, prepared, reachedEnd: prepared.count < batchSize)
        return prepared
    }
}
