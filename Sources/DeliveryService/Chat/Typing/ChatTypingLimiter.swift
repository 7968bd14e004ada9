import Foundation

/// The typing rate rule as a value (events in, actions out; the caller keeps the clock and the
/// timers): per device and conversation, at most `burst` calls in a window of `interval` seconds
/// (`admit` says how long until the window ends past them), and at most one event sent per
/// `interval`: a call within it is folded, its event replacing any folded before, and the last one
/// goes out when the interval ends (`flush`). So a burst of calls yields the first event at once
/// and the latest state one interval later, never more.
struct ChatTypingLimiter<Key: Hashable, Event> {
    enum Decision {
        /// Send this event now.
        case send
        /// Folded: send what `flush(key)` returns at `at`; `schedule` is true for the call that must
        /// arrange it (later folded calls ride on the same flush).
        case fold(at: Date, schedule: Bool)
    }

    private struct Slot {
        var windowStart: Date
        var calls = 0
        var lastSent: Date?
        var pending: Event?
        var flushAt: Date?
    }

    let interval: Double
    let burst: Int
    /// Devices and conversations tracked at once; idle ones are forgotten to make room.
    let capacity: Int
    private var slots: [Key: Slot] = [:]

    init(interval: Double, burst: Int, capacity: Int = 100_000) {
        self.interval = interval
        self.burst = max(1, burst)
        self.capacity = max(1, capacity)
    }

    var count: Int { slots.count }

    /// Counts a call (before anything costly is done for it): nil when it is within the burst.
    mutating func admit(_ key: Key, now: Date) -> Double? {
        if slots[key] == nil { makeRoom(now: now) }
        var slot = slots[key] ?? Slot(windowStart: now)
        if now.timeIntervalSince(slot.windowStart) >= interval || now < slot.windowStart {
            slot.windowStart = now
            slot.calls = 0
        }
        guard slot.calls < burst else {
            slots[key] = slot
            return max(0.001, slot.windowStart.addingTimeInterval(interval).timeIntervalSince(now))
        }
        slot.calls += 1
        slots[key] = slot
        return nil
    }

    /// An admitted call's event: sent now, or folded into the next.
    mutating func publish(_ key: Key, _ event: Event, now: Date) -> Decision {
        var slot = slots[key] ?? Slot(windowStart: now)
        defer { slots[key] = slot }
        if let flushAt = slot.flushAt {
            slot.pending = event
            return .fold(at: flushAt, schedule: false)
        }
        if let last = slot.lastSent, now.timeIntervalSince(last) < interval, now >= last {
            let at = last.addingTimeInterval(interval)
            slot.pending = event
            slot.flushAt = at
            return .fold(at: at, schedule: true)
        }
        slot.lastSent = now
        return .send
    }

    /// The folded event due now, if any (the interval that held it ended).
    mutating func flush(_ key: Key, now: Date) -> Event? {
        guard var slot = slots[key], let event = slot.pending else { return nil }
        slot.pending = nil
        slot.flushAt = nil
        slot.lastSent = now
        slots[key] = slot
        return event
    }

    /// Forgets slots with nothing pending whose last activity is an interval old; past that, the
    /// oldest half.
    private mutating func makeRoom(now: Date) {
        guard slots.count >= capacity else { return }
        slots = slots.filter { _, slot in
            slot.pending != nil || now.timeIntervalSince(max(slot.windowStart, slot.lastSent ?? slot.windowStart)) < interval
        }
        guard slots.count >= capacity else { return }
        let keep = slots.sorted { $0.value.windowStart > $1.value.windowStart }.prefix(capacity / 2)
        slots = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
