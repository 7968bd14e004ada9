import Synchronization

/// Work for one connection from another thread (a worker's response, a WebSocket send),
/// travelling to the connection's I/O thread.
struct Completion: Sendable {
    enum Payload: Sendable {
        case response(HTTPResponse)
        /// The responder accepted a WebSocket upgrade whose client key was `key`.
        case webSocketAccepted(any WebSocketHandler, headers: HTTPHeaders, key: String)
        case webSocket(WebSocketOutbound)
        /// The consumer of a streamed body caught up.
        case resumeBody
        /// A message for a stream connection's session (`StreamConnectionHandle.post`).
        case stream(any Sendable)
        /// A connection another loop accepted (and reserved) for this one to serve (`IOLoop.admit`).
        case adopt(Socket, remoteAddress: String)
    }

    let descriptor: Int32
    let serial: UInt64
    let payload: Payload

    init(descriptor: Int32, serial: UInt64, payload: Payload) {
        self.descriptor = descriptor
        self.serial = serial
        self.payload = payload
    }

    init(descriptor: Int32, serial: UInt64, response: HTTPResponse) {
        self.init(descriptor: descriptor, serial: serial, payload: .response(response))
    }
}

/// The thread-safe face of one I/O thread: other threads post completions and stop requests here
/// and wake it through its eventfd.
final class IOLoopHandle: Sendable {
    let epoll: Epoll
    let wakeup: EventFD
    let listener: Socket?
    /// The stream listeners (`HTTPServer`'s `streams`), in order, shared by every loop.
    let streamListeners: [Socket]
    private let inbox = Mutex<[Completion]>([])
    private let stopping = Atomic<Bool>(false)
    private let waiting = Atomic<Bool>(false)
    /// HTTP connections assigned to this loop: counted when assigned (by whichever loop accepted
    /// them), released when closed. Shared-listener loops balance their connections by it.
    let assigned = Atomic<Int>(0)

    init(epoll: Epoll, wakeup: EventFD, listener: Socket?, streamListeners: [Socket] = []) {
        self.epoll = epoll
        self.wakeup = wakeup
        self.listener = listener
        self.streamListeners = streamListeners
    }

    func post(_ completion: Completion) {
        let wasEmpty = inbox.withLock { items in
            items.append(completion)
            if items.count == 1 { waiting.store(true, ordering: .relaxed) }
            return items.count == 1
        }
        // One wake-up per batch: the loop drains the eventfd before taking the inbox.
        if wasEmpty { wakeup.signal() }
    }

    func takeCompletions() -> [Completion] {
        inbox.withLock { items in
            waiting.store(false, ordering: .relaxed)
            let taken = items
            items = []
            return taken
        }
    }

    /// True once something was posted and not yet taken: the loop looks between the events of a
    /// busy round, so that an answer does not wait behind every other connection's work.
    /// A hint read without the lock; `takeCompletions` is what counts.
    var hasCompletions: Bool { waiting.load(ordering: .relaxed) }

    func requestStop() {
        stopping.store(true, ordering: .releasing)
        wakeup.signal()
    }

    var stopRequested: Bool {
        stopping.load(ordering: .acquiring)
    }
}
