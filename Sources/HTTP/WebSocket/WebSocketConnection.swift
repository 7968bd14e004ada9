import Synchronization

/// The sending side of one WebSocket, usable from any thread. Frames are queued to the
/// connection's I/O thread; output not yet written counts against `maxBufferedOutput`, and a send
/// that would exceed it fails and closes the connection with 1008, so a slow reader cannot make
/// the server hold unbounded memory.
public final class WebSocketConnection: Sendable {
    /// The upgrade request: path, query and headers (for routing and authentication).
    public let request: HTTPRequestHead
    public let remoteAddress: String
    public let maxBufferedOutput: Int

    private let handle: IOLoopHandle
    private let descriptor: Int32
    private let serial: UInt64
    private let buffered = Atomic<Int>(0)
    private let closing = Atomic<Bool>(false)

    init(request: HTTPRequestHead, remoteAddress: String, maxBufferedOutput: Int, handle: IOLoopHandle, descriptor: Int32, serial: UInt64) {
        self.request = request
        self.remoteAddress = remoteAddress
        self.maxBufferedOutput = maxBufferedOutput
        self.handle = handle
        self.descriptor = descriptor
        self.serial = serial
    }

    /// Bytes queued or written to the socket but not yet accepted by it.
    public var bufferedAmount: Int { buffered.load(ordering: .relaxed) }

    /// False once a close was started by either side.
    public var isOpen: Bool { !closing.load(ordering: .acquiring) }

    /// Queues a text message; false when the connection is closing or the buffer limit was hit.
    @discardableResult
    public func send(text: String) -> Bool {
        send(WebSocketFrame.encode(opcode: .text, payload: Array(text.utf8)))
    }

    @discardableResult
    public func send(binary: [UInt8]) -> Bool {
        send(WebSocketFrame.encode(opcode: .binary, payload: binary))
    }

    /// Starts the close handshake (RFC 6455 §7.1.2); the handler's `didClose` follows.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        guard markClosing() else { return }
        post(.close(code, reason: reason))
    }

    private func send(_ frame: [UInt8]) -> Bool {
        guard isOpen else { return false }
        let total = buffered.add(frame.count, ordering: .relaxed).newValue
        guard total <= maxBufferedOutput else {
            buffered.subtract(frame.count, ordering: .relaxed)
            if markClosing() { post(.overflow) }
            return false
        }
        post(.frame(frame))
        return true
    }

    private func post(_ output: WebSocketOutbound) {
        handle.post(Completion(descriptor: descriptor, serial: serial, payload: .webSocket(output)))
    }

    // MARK: I/O thread side

    /// Records that the close handshake started; true for the first caller.
    func markClosing() -> Bool {
        closing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    /// Output the I/O thread queued itself (pongs, close frames).
    func account(_ count: Int) {
        buffered.add(count, ordering: .relaxed)
    }

    /// Output that reached the socket, or was dropped.
    func release(_ count: Int) {
        guard count > 0 else { return }
        buffered.subtract(count, ordering: .relaxed)
    }
}

/// Work another thread hands to a WebSocket's I/O thread.
enum WebSocketOutbound: Sendable {
    case frame([UInt8])
    case close(WebSocketCloseCode, reason: String)
    /// A send exceeded `maxBufferedOutput`.
    case overflow
}
