import Dispatch
import Synchronization

/// Group commit for sendMessage: concurrent callers' messages share one transaction, one round
/// trip and one WAL flush (`DeliveryStore.appendMessages`).
///
/// Conversations are spread over `lanes` by a hash of their id; each lane runs at most one batch
/// at a time (`MessageBatchLane`), so lanes never contend for the same conversation rows and
/// their commits overlap in PostgreSQL's own group commit. There is no timer: a batch is whatever
/// queued while the previous one ran, so a lone message goes at once and a busy lane fills its
/// batches by itself. The caller's thread blocks until its message is committed or refused; the
/// thread whose message arrives at an idle lane (or is handed the lead) runs the batch.
public final class MessageBatcher: Sendable {
    private let store: DeliveryStore
    private let lanes: [Lane]

    /// `lanes` should stay well below the pool size: each running batch holds one connection.
    public init(store: DeliveryStore, lanes: Int = 2, maxBatch: Int = 128) {
        precondition(lanes >= 1 && maxBatch >= 1)
        self.store = store
        self.lanes = (0..<lanes).map { _ in Lane(maxBatch: maxBatch) }
    }

    /// Stores `message` in the next batch of its conversation's lane and returns once that batch
    /// has committed (or failed): a success means committed.
    public func append(_ message: BatchedMessage) -> BatchedAppend {
        let ticket = Ticket(message)
        let lane = lanes[Self.laneIndex(message.message.convoID, count: lanes.count)]
        switch lane.state.withLock({ $0.submit(ticket) }) {
        case .lead(let batch):
            run(batch, in: lane)
        case .wait:
            if ticket.waitForTurn() == .lead {
                run(lane.state.withLock { $0.takeBatch() }, in: lane)
            }
        }
        return ticket.outcome
    }

    private func run(_ batch: [Ticket], in lane: Lane) {
        let outcomes = store.appendMessages(batch.map(\.message))
        for (ticket, outcome) in zip(batch, outcomes) { ticket.complete(outcome) }
        if let next = lane.state.withLock({ $0.finish() }) { next.handLead() }
    }

    /// FNV-1a over the id's bytes: stable, and cheap next to the request.
    static func laneIndex(_ convoID: String, count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in convoID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(count))
    }
}

/// A lane's state behind its lock.
final class Lane: Sendable {
    let state: Mutex<MessageBatchLane<Ticket>>

    init(maxBatch: Int) { state = Mutex(MessageBatchLane(maxBatch: maxBatch)) }
}

/// One caller's place in a lane: its message, and where it is told to lead or given its outcome.
final class Ticket: MessageBatchEntry, Sendable {
    enum Turn: Equatable { case lead, done }

    let message: BatchedMessage
    let exclusiveKeys: [String]
    private let semaphore = DispatchSemaphore(value: 0)
    private let state = Mutex<(turn: Turn?, outcome: BatchedAppend?)>((nil, nil))

    init(_ message: BatchedMessage) {
        self.message = message
        var keys = ["m\u{0}\(message.message.convoID)\u{0}\(message.message.msgID)"]
        if let replay = message.replay { keys.append("t\u{0}\(replay.iss)\u{0}\(replay.jti)") }
        exclusiveKeys = keys
    }

    /// Blocks until this ticket is handed the lead or its outcome.
    func waitForTurn() -> Turn {
        semaphore.wait()
        return state.withLock { $0.turn! }
    }

    func handLead() {
        state.withLock { $0.turn = .lead }
        semaphore.signal()
    }

    func complete(_ outcome: BatchedAppend) {
        let waiting = state.withLock { state in
            let waiting = state.turn == nil
            state.outcome = outcome
            state.turn = .done
            return waiting
        }
        // The leader completes its own ticket too, and does not wait on it.
        if waiting { semaphore.signal() }
    }

    /// Set once the ticket's batch has run.
    var outcome: BatchedAppend { state.withLock { $0.outcome! } }
}
