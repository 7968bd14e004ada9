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
    private let lanes: GroupCommitLanes<BatchedMessage, BatchedAppend>

    /// `lanes` should stay well below the pool size: each running batch holds one connection.
    public init(store: DeliveryStore, lanes: Int = 1, maxBatch: Int = 128) {
        self.lanes = GroupCommitLanes(lanes: lanes, maxBatch: maxBatch) { store.appendMessages($0) }
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
        lanes.append(message, lane: message.message.convoID, exclusiveKeys: Self.exclusiveKeys(message), lead: lead,
                     completion: completion)
    }

    /// Stores `message` and returns its outcome once its batch committed (or failed).
    public func append(_ message: BatchedMessage) -> BatchedAppend {
        lanes.append(message, lane: message.message.convoID, exclusiveKeys: Self.exclusiveKeys(message))
    }

    /// A batch never holds one (convo, msgId) or one token twice.
    static func exclusiveKeys(_ message: BatchedMessage) -> [String] {
        var keys = ["m\u{0}\(message.message.convoID)\u{0}\(message.message.msgID)"]
        if let replay = message.replay { keys.append("t\u{0}\(replay.iss)\u{0}\(replay.jti)") }
        return keys
    }

    static func laneIndex(_ convoID: String, count: Int) -> Int { GroupCommitLanes<BatchedMessage, BatchedAppend>.laneIndex(convoID, count: count) }
}
