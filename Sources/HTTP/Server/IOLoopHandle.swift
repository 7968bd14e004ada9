import Synchronization

/// A response computed on a worker thread, travelling back to the connection's I/O thread.
struct Completion: Sendable {
    let descriptor: Int32
    let serial: UInt64
    let response: HTTPResponse
}

/// The thread-safe face of one I/O thread: other threads post completions and stop requests here
/// and wake it through its eventfd.
final class IOLoopHandle: Sendable {
    let epoll: Epoll
    let wakeup: EventFD
    let listener: Socket?
    private let inbox = Mutex<[Completion]>([])
    private let stopping = Atomic<Bool>(false)

    init(epoll: Epoll, wakeup: EventFD, listener: Socket?) {
        self.epoll = epoll
        self.wakeup = wakeup
        self.listener = listener
    }

    func post(_ completion: Completion) {
        let wasEmpty = inbox.withLock { items in
            items.append(completion)
            return items.count == 1
        }
        // One wake-up per batch: the loop drains the eventfd before taking the inbox.
        if wasEmpty { wakeup.signal() }
    }

    func takeCompletions() -> [Completion] {
        inbox.withLock { items in
            let taken = items
            items = []
            return taken
        }
    }

    func requestStop() {
        stopping.store(true, ordering: .releasing)
        wakeup.signal()
    }

    var stopRequested: Bool {
        stopping.load(ordering: .acquiring)
    }
}
