import Dispatch
import Synchronization

/// The receiving side of the events bench: the sockets split over a few threads, each a poll(2)
/// loop that stamps every messageEvent of the run as it is parsed.
final class EventReaders: Sendable {
    struct Receipt: Sendable {
        /// The message's index in the run (from its msgId).
        var index: Int
        var nanos: UInt64
    }

    private let slices: [[EventSubscriber]]
    private let ids: MessageIDs
    /// Indices below this are measured messages; the others are warm-ups.
    private let measured: Int
    private let stopping = Atomic<Bool>(false)
    private let receivedCount = Atomic<Int>(0)
    private let warmedUpCount = Atomic<Int>(0)
    private let results = Mutex<(receipts: [Receipt], closeCodes: [UInt16], done: DispatchGroup?)>(([], [], nil))

    init(sockets: [EventSubscriber], threads: Int, ids: MessageIDs, measured: Int) {
        let count = max(1, min(threads, sockets.count))
        slices = (0..<count).map { slice in
            Array(sockets[(sockets.count * slice / count)..<(sockets.count * (slice + 1) / count)])
        }
        self.ids = ids
        self.measured = measured
    }

    /// Measured events received so far, over all sockets.
    var received: Int { receivedCount.load(ordering: .relaxed) }
    /// Sockets that have received at least one warm-up event.
    var warmedUp: Int { warmedUpCount.load(ordering: .relaxed) }

    func start() {
        let group = Threads.start(slices.count) { [self] slice in loop(slices[slice]) }
        results.withLock { $0.done = group }
    }

    /// Stops the loops, closes the sockets, and returns every receipt and the close codes of the
    /// sockets the server closed. Safe to call again (the second call returns nothing new).
    @discardableResult
    func stop() -> (receipts: [Receipt], closeCodes: [UInt16]) {
        stopping.store(true, ordering: .relaxed)
        let group = results.withLock { state in
            defer { state.done = nil }
            return state.done
        }
        group?.wait()
        return results.withLock { state in
            defer { state.receipts = []; state.closeCodes = [] }
            return (state.receipts, state.closeCodes)
        }
    }

    private func loop(_ initial: [EventSubscriber]) {
        var sockets = initial
        var receipts: [Receipt] = []
        receipts.reserveCapacity(sockets.count * measured)
        var warm = [Bool](repeating: false, count: sockets.count)
        var scratch = [UInt8](repeating: 0, count: 1 << 16)
        let readiness: ReadinessSet
        do {
            readiness = try ReadinessSet(capacity: sockets.count)
            for position in sockets.indices { try readiness.add(sockets[position].socket, token: position) }
        } catch {
            for position in sockets.indices { sockets[position].markFailed() }
            return finish(sockets, receipts: [])
        }
        while !stopping.load(ordering: .relaxed) {
            for position in readiness.wait(timeoutMilliseconds: 20) {
                let count = receipts.count
                do {
                    try sockets[position].receive(scratch: &scratch) { msgID in
                        guard let index = ids.index(ofID: msgID) else { return }
                        if index < measured {
                            receipts.append(Receipt(index: index, nanos: ProcessClock.now()))
                        } else if !warm[position] {
                            warm[position] = true
                            warmedUpCount.add(1, ordering: .relaxed)
                        }
                    }
                } catch {
                    sockets[position].markFailed()
                }
                if receipts.count > count { receivedCount.add(receipts.count - count, ordering: .relaxed) }
                // A closed socket would stay readable forever.
                if sockets[position].closeCode != nil { readiness.remove(sockets[position].socket) }
            }
        }
        finish(sockets, receipts: receipts)
    }

    private func finish(_ sockets: [EventSubscriber], receipts: [Receipt]) {
        for socket in sockets { socket.socket.close() }
        let closed = sockets.compactMap(\.closeCode)
        results.withLock { state in
            state.receipts += receipts
            state.closeCodes += closed
        }
    }
}
