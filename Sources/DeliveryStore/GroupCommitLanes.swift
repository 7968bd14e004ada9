import Dispatch
import Synchronization

/// Group commit: concurrent callers' items share one batch (one transaction, one round trip, one
/// WAL flush), run by `run`, which answers one outcome per item, in order.
///
/// Items are spread over `lanes` by a hash of their lane key (a conversation); each lane runs at
/// most one batch at a time (`MessageBatchLane`), so lanes never contend for the same rows and their
/// commits overlap in PostgreSQL's own group commit. There is no timer: a batch is whatever queued
/// while the previous one ran, so a lone item goes at once and a busy lane fills its batches by itself.
///
/// A caller does not wait for its batch (`append(_:lane:exclusiveKeys:lead:completion:)`): the
/// thread whose item arrives at an idle lane runs that lane's batches, one after another, until
/// nothing is queued, and calls each item's completion as its batch ends. A batch can so hold every
/// item under way, not only as many as there are threads to wait, and no thread sleeps and wakes
/// per item. At most one thread per lane is ever busy here.
public final class GroupCommitLanes<Item: Sendable, Outcome: Sendable>: Sendable {
    struct Entry: MessageBatchEntry, Sendable {
        let item: Item
        let exclusiveKeys: [String]
        let completion: @Sendable (Outcome) -> Void
    }

    /// A lane's state behind its lock.
    final class Lane: Sendable {
        let state: Mutex<MessageBatchLane<Entry>>
        init(maxBatch: Int) { state = Mutex(MessageBatchLane(maxBatch: maxBatch)) }
    }

    private let lanes: [Lane]
    private let run: @Sendable ([Item]) -> [Outcome]

    public init(lanes: Int, maxBatch: Int, run: @escaping @Sendable ([Item]) -> [Outcome]) {
        precondition(lanes >= 1 && maxBatch >= 1)
        self.lanes = (0..<lanes).map { _ in Lane(maxBatch: maxBatch) }
        self.run = run
    }

    /// Queues `item` for the next batch of its lane; `completion` gets its outcome once that batch
    /// committed (or failed). It runs on the thread that ran the batch, which may be this one,
    /// before `append` returns; it should be quick, since the lane's next batch waits for it.
    /// No batch holds two items sharing one of `exclusiveKeys`.
    ///
    /// `lead`, when given, runs the lane's batches instead of this thread (which must then not
    /// block: an I/O thread hands them to a worker).
    public func append(_ item: Item, lane key: String, exclusiveKeys: [String],
                       lead: (@Sendable (_ batches: @escaping @Sendable () -> Void) -> Void)? = nil,
                       completion: @escaping @Sendable (Outcome) -> Void) {
        let lane = lanes[Self.laneIndex(key, count: lanes.count)]
        guard case .lead(let batch) = lane.state.withLock({ $0.submit(Entry(item: item, exclusiveKeys: exclusiveKeys, completion: completion)) })
        else { return }
        guard let lead else { return drain(batch, lane: lane) }
        lead { [self] in drain(batch, lane: lane) }
    }

    /// Runs `batch`, then the lane's next ones until none is queued.
    private func drain(_ first: [Entry], lane: Lane) {
        var batch = first
        while true {
            let outcomes = run(batch.map(\.item))
            for (entry, outcome) in zip(batch, outcomes) { entry.completion(outcome) }
            guard let next = lane.state.withLock({ $0.finish() }) else { return }
            batch = next
        }
    }

    /// Appends `item` and returns its outcome once its batch committed (or failed).
    public func append(_ item: Item, lane key: String, exclusiveKeys: [String]) -> Outcome {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Outcome?>(nil)
        append(item, lane: key, exclusiveKeys: exclusiveKeys) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0! }
    }

    /// FNV-1a over the key's bytes: stable, and cheap next to the request.
    static func laneIndex(_ key: String, count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % UInt64(count))
    }
}
