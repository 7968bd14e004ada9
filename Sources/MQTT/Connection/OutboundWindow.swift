/// Server-to-client QoS 1 flow (MQTT 5.0 §4.9): at most the client's Receive Maximum in flight, Packet
/// Identifiers allocated unused and non-zero [MQTT-2.2.1-4], the rest queued in order up to a limit.
struct OutboundWindow: Sendable {
    struct Entry: Equatable, Sendable {
        var outbound: OutboundMessage
        /// Kept from a resumed Session, else allocated when sent.
        var packetIdentifier: UInt16?
        /// A re-delivery (§3.3.1.1 [MQTT-3.3.1-1]).
        var dup: Bool
        var sequence: Int
        /// When it was queued (monotonic ns), for Message Expiry (§3.3.2.3.3).
        var queuedAt: UInt64 = 0
    }

    /// The client's Receive Maximum: the initial send quota [MQTT-4.9.0-1].
    let receiveMaximum: Int
    let queueLimit: Int
    private(set) var inflight: [UInt16: Entry] = [:]
    private var queue: [Entry] = []
    private var queueHead = 0
    /// Identifiers held by queued entries of a resumed Session.
    private var reserved: Set<UInt16> = []
    private var nextIdentifier: UInt16 = 1
    private var sequence = 0

    init(receiveMaximum: Int, queueLimit: Int) {
        self.receiveMaximum = receiveMaximum
        self.queueLimit = queueLimit
    }

    var queuedCount: Int { queue.count - queueHead }
    var hasQuota: Bool { inflight.count < receiveMaximum }

    /// Adds to the back of the queue; false when full.
    mutating func enqueue(_ outbound: OutboundMessage, at now: UInt64, packetIdentifier: UInt16? = nil, dup: Bool = false,
                          force: Bool = false) -> Bool {
        guard force || queuedCount < queueLimit else { return false }
        if let packetIdentifier { reserved.insert(packetIdentifier) }
        sequence += 1
        queue.append(Entry(outbound: outbound, packetIdentifier: packetIdentifier, dup: dup, sequence: sequence, queuedAt: now))
        return true
    }

    /// The next queued entry that may go out now, with its Packet Identifier, or nil while the send
    /// quota is used up (§4.9 [MQTT-4.9.0-2]) or every identifier is taken.
    mutating func takeNext() -> (Entry, UInt16)? {
        guard hasQuota, queueHead < queue.count else { return nil }
        var entry = queue[queueHead]
        let identifier: UInt16
        if let kept = entry.packetIdentifier {
            identifier = kept
            reserved.remove(kept)
        } else {
            guard let fresh = allocateIdentifier() else { return nil }
            identifier = fresh
        }
        entry.packetIdentifier = identifier
        queueHead += 1
        if queueHead > 64, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        return (entry, identifier)
    }

    /// Whether a new message may skip the queue: nothing is waiting and quota is left.
    var canSendImmediately: Bool { queuedCount == 0 && hasQuota }

    mutating func sequenceNumber() -> Int {
        sequence += 1
        return sequence
    }

    mutating func markInflight(_ entry: Entry, identifier: UInt16) {
        var entry = entry
        entry.packetIdentifier = identifier
        inflight[identifier] = entry
    }

    /// Ends the flight of `identifier` on PUBACK (§4.3.2); the quota grows back by one (§4.9).
    mutating func acknowledge(_ identifier: UInt16) -> Entry? {
        inflight.removeValue(forKey: identifier)
    }

    /// MQTT 5.0 §2.2.1 [MQTT-2.2.1-4]: non-zero and not in use by an unacknowledged PUBLISH.
    mutating func allocateIdentifier() -> UInt16? {
        for _ in 0..<Int(UInt16.max) {
            let candidate = nextIdentifier
            nextIdentifier = nextIdentifier == UInt16.max ? 1 : nextIdentifier + 1
            if inflight[candidate] == nil, !reserved.contains(candidate) { return candidate }
        }
        return nil
    }

    /// Everything left, for the Session State: unacknowledged messages (in flight, and those of a
    /// resumed Session still waiting to be resent) in the order first sent, then the never-sent queue.
    func remaining() -> (inflight: [InflightMessage], queued: [OutboundMessage]) {
        let waiting = queue[queueHead...]
        let unacknowledged = (Array(inflight.values) + waiting.filter { $0.packetIdentifier != nil })
            .sorted { $0.sequence < $1.sequence }
            .compactMap { entry in entry.packetIdentifier.map { InflightMessage(packetIdentifier: $0, outbound: entry.outbound) } }
        return (unacknowledged, waiting.filter { $0.packetIdentifier == nil }.map(\.outbound))
    }
}
