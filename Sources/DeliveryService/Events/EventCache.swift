import Synchronization

/// The newest events of the busiest conversations, prepared once and shared: a conversation's
/// followers (subscribeConvoEvents sockets, MQTT Sessions) that fall behind the hub catch up from
/// here instead of each reading the log again (200 followers of one group behind by one batch
/// would otherwise make 400 queries). Each conversation's entry is a contiguous run of event_seqs,
/// extended as the log is read in order and trimmed from the front; the log is append-only, so a
/// cached event never changes. Bounded by events per conversation and bytes overall (least
/// recently used conversations go first).
///
/// A run shorter than asked for is an answer only if it reaches the newest event_seq known to exist:
/// announced on the event channel (`heard`), or past a log read that stopped at its batch size.
/// Otherwise the log holds more that no reader has cached yet, and a reader that took the short
/// run for the end (a follower catching up while the hub's news went to its catch-up) would stop
/// short of it.
final class EventCache: Sendable {
    private struct Entry {
        /// event_seq of `events[0]`.
        var first: Int64
        var events: [PreparedEvent]
        var bytes: Int
        var lastUse: UInt64
        /// The newest event_seq known to exist: announced on the event channel since the entry was
        /// made, or one past a log read that did not reach the log's end.
        var announced: Int64 = 0
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    let maxEventsPerConvo: Int
    let maxBytes: Int
    private let state = Mutex(State())

    init(maxEventsPerConvo: Int = 2048, maxBytes: Int = 64 << 20) {
        self.maxEventsPerConvo = maxEventsPerConvo
        self.maxBytes = maxBytes
    }

    /// Up to `limit` events after `seq` if the cache holds the next one (nil: ask the log).
    func events(convoID: String, after seq: Int64, limit: Int) -> [PreparedEvent]? {
        state.withLock { state in
            guard var entry = state.entries[convoID] else { return nil }
            let offset = seq + 1 - entry.first
            guard offset >= 0, offset < Int64(entry.events.count) else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            let start = Int(offset)
            let end = min(entry.events.count, start + limit)
            // Short of what was announced: the log has the rest.
            if end - start < limit, entry.first + Int64(end) - 1 < entry.announced { return nil }
            let slice = Array(entry.events[start..<end])
            state.entries[convoID] = entry
            return slice
        }
    }

    /// The event channel announced `seq` for the conversation (EventHub's listener, before the
    /// fan-out reads it).
    func heard(convoID: String, seq: Int64) {
        state.withLock { state in
            guard state.entries[convoID] != nil else { return }
            state.entries[convoID]!.announced = max(state.entries[convoID]!.announced, seq)
        }
    }

    /// Keeps `events`, read from the log right after `seq`, when they continue the cached run (or
    /// start one). `reachedEnd`: the read got all the log held (fewer than it asked for); if not,
    /// the log holds at least one more, and a run ending here is no answer to a longer ask.
    func store(convoID: String, after seq: Int64, _ events: [PreparedEvent], reachedEnd: Bool) {
        guard let firstSeq = events.first?.seq, firstSeq == seq + 1 else { return }
        state.withLock { state in
            state.clock += 1
            var entry = state.entries[convoID] ?? Entry(first: firstSeq, events: [], bytes: 0, lastUse: state.clock)
            let end = entry.first + Int64(entry.events.count)
            // An older run (a reader far behind) never displaces the head that the others share.
            if !entry.events.isEmpty, firstSeq < entry.first { return }
            if entry.events.isEmpty || firstSeq > end {
                // A newer run, past a gap: it replaces the cached one.
                state.bytes -= entry.bytes
                state.entries[convoID] = nil
                entry = Entry(first: firstSeq, events: [], bytes: 0, lastUse: state.clock, announced: entry.announced)
            }
            let next = entry.first + Int64(entry.events.count)
            for event in events where event.seq >= next {
                guard event.seq == entry.first + Int64(entry.events.count) else { break }
                entry.events.append(event)
                entry.bytes += Self.size(event)
            }
            if entry.events.count > maxEventsPerConvo {
                let drop = entry.events.count - maxEventsPerConvo
                for event in entry.events[..<drop] { entry.bytes -= Self.size(event) }
                entry.events.removeFirst(drop)
                entry.first += Int64(drop)
            }
            if !reachedEnd, let last = events.last?.seq { entry.announced = max(entry.announced, last + 1) }
            let added = entry.bytes - (state.entries[convoID]?.bytes ?? 0)
            entry.lastUse = state.clock
            state.entries[convoID] = entry
            state.bytes += added
            while state.bytes > maxBytes, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                state.bytes -= state.entries[oldest]?.bytes ?? 0
                state.entries[oldest] = nil
            }
        }
    }

    /// Approximate memory of an event: its JSON body and the stored message's bytes.
    private static func size(_ event: PreparedEvent) -> Int {
        event.body.utf8.count + (event.row?.ciphertext?.count ?? 0) + 256
    }

    var eventCount: Int { state.withLock { $0.entries.values.reduce(0) { $0 + $1.events.count } } }
}
