import Dispatch
import Synchronization

/// Group commit for sendMessage: concurrent callers' messages share one transaction, one round
/// trip and one WAL flush (`DeliveryStore.appendMessages`).
///
/// Conversations are spread over `lanes` by a hash of their id; each lane runs at most one batch
/// at a time (`MessageBatchLane`), so lanes never contend for the same conversation rows and
/// their commits overlap in PostgreSQL's own group commit. There is no timer: a batch is whatever
/// queued while the previous one ran, so a lone message goes at once and a busy lane fills its
/// batches by itself.
///
/// A caller does not wait for its batch (`append(_:completion:)`): the thread whose message
/// arrives at an idle lane runs that lane's batches, one after another, until nothing is queued,
/// and calls each message's completion as its batch ends. A batch can so hold every message
/// under way, not only as many as there are threads to wait, and no thread sleeps and wakes per
/// message. At most one thread per lane is ever busy here.
public final class MessageBatcher: Sendable {
    private let store: DeliveryStore
    private let lanes: [Lane]

    /// `lanes` should stay well below the pool size: each running batch holds one connection.
    public init(store: DeliveryStore, lanes: Int = 1, maxBatch: Int = 128) {
        precondition(lanes >= 1 && maxBatch >= 1)
        self.store = store
        self.lanes = (0..<lanes).map { _ in Lane(maxBatch: maxBatch) }
    }

    /// Queues `message` for the next batch of its conversation's lane; `completion` gets its
    /// outcome once that batch committed (or failed): a success means committed. It runs on the
    /// thread that ran the batch, which may be this one, before `append` returns; it should be
    /// quick, since the lane's next batch waits for it.
    ///
    /// `lead`, when given, runs the lane's batches instead of this thread (which must then not
    /// block: an I/O thread hands them to a worker).
    public func append(_ message: BatchedMessage, lead: (@Sendable (_ batches: @escaping @Sendable () -> Void) -> Void)? = nil,
                       completion: @escaping @Sendable (BatchedAppend) -> Void) {
        let ticket = Ticket(message, completion: completion)
        let lane = lanes[Self.laneIndex(message.message.convoID, count: lanes.count)]
        guard case .lead(let batch) = lane.state.withLock({ $0.submit(ticket) }) else { return }
        guard let lead else { return run(batch, lane: lane) }
        lead { [self] in run(batch, lane: lane) }
    }

    /// Runs `batch`, then the lane's next ones until none is queued.
    private func run(_ first: [Ticket], lane: Lane) {
        var batch = first
        while true {
            let outcomes = store.appendMessages(batch.map(\.message))
            for (ticket, outcome) in zip(batch, outcomes) { ticket.completion(outcome) }
            guard let next = lane.state.withLock({ $0.finish() }) else { return }
            batch = next
        }
    }

    /// Stores `message` and returns its outcome once its batch committed (or failed).
    public func append(_ message: BatchedMessage) -> BatchedAppend {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<BatchedAppend?>(nil)
        append(message) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0! }
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

/// One caller's message in a lane, with where its outcome goes.
struct Ticket: MessageBatchEntry, Sendable {
    let message: BatchedMessage
    let completion: @Sendable (BatchedAppend) -> Void
    let exclusiveKeys: [String]

    init(_ message: BatchedMessage, completion: @escaping @Sendable (BatchedAppend) -> Void) {
        self.message = message
        self.completion = completion
        var keys = ["m\u{0}\(message.message.convoID)\u{0}\(message.message.msgID)"]
        if let replay = message.replay { keys.append("t\u{0}\(replay.iss)\u{0}\(replay.jti)") }
        exclusiveKeys = keys
    }
}
