/// Something queued for a batch, with the keys no two members of one batch may share.
protocol MessageBatchEntry {
    /// E.g. the (convo, msgId) pair and the token's (iss, jti): a batch holding the same key
    /// twice would have to order two writes inside one statement.
    var exclusiveKeys: [String] { get }
}

/// One lane of group commit as a value type, free of locks and threads so it can be tested alone:
/// entries queue up while the lane's leader runs a batch; when it finishes, it takes everything
/// queued by then as its next batch, and the lane goes idle only when nothing is. At most one
/// batch per lane is in flight, so entries of one lane are stored in queue order.
struct MessageBatchLane<Entry: MessageBatchEntry> {
    let maxBatch: Int
    private(set) var queue: [Entry] = []
    /// Whether a leader is running a batch.
    private(set) var leading = false

    init(maxBatch: Int) {
        precondition(maxBatch >= 1)
        self.maxBatch = maxBatch
    }

    enum SubmitAction {
        /// The caller leads: it runs this batch (its own entry first).
        case lead([Entry])
        /// A leader is busy; the caller waits to be handed its result or the lead.
        case wait
    }

    mutating func submit(_ entry: Entry) -> SubmitAction {
        queue.append(entry)
        guard !leading else { return .wait }
        leading = true
        return .lead(takeBatch())
    }

    /// The leader has delivered its batch's results. Returns its next batch (it keeps the lead), or
    /// nil when nothing waits and the lane is idle.
    mutating func finish() -> [Entry]? {
        guard !queue.isEmpty else {
            leading = false
            return nil
        }
        return takeBatch()
    }

    /// The next batch, in queue order: up to `maxBatch` entries, skipping (and keeping queued, in
    /// order) any entry that shares a key with one already taken. The first entry is always taken.
    private mutating func takeBatch() -> [Entry] {
        var batch: [Entry] = []
        var keys = Set<String>()
        var kept: [Entry] = []
        for entry in queue {
            let entryKeys = entry.exclusiveKeys
            if batch.count < maxBatch, entryKeys.allSatisfy({ !keys.contains($0) }) {
                batch.append(entry)
                keys.formUnion(entryKeys)
            } else {
                kept.append(entry)
            }
        }
        queue = kept
        return batch
    }
}
