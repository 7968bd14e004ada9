import Dispatch
import Synchronization

/// How the server hands a request body to the responder, chosen per request from its head.
public enum HTTPBodyHandling: Sendable, Equatable {
    /// Read the whole body (up to `maxBodySize(for:)`), then call `respond(to:)`. The default.
    case buffered
    /// Call `respond(to:body:)` on the worker pool as soon as the head arrives and hand it the
    /// body piece by piece; a body beyond `maxSize` bytes is refused with 413.
    case stream(maxSize: Int)
}

/// Why a streamed body ended before its last byte.
public enum HTTPBodyStreamError: Error, Sendable, Equatable {
    /// The body passed the size limit (the client gets 413 and the connection closes).
    case payloadTooLarge
    /// The client closed the connection or it failed mid-body.
    case clientDisconnected
    /// No body bytes arrived for the server's `bodyReadTimeout` (the client gets 408).
    case timedOut
    /// The body's framing was invalid (a malformed chunk; the client gets 400).
    case malformed
}

/// A request body arriving from the connection's I/O thread, read by one consumer on a worker
/// thread. `read()` blocks until the next piece arrives. At most about `highWater` bytes wait here:
/// beyond that the I/O thread stops reading the socket until the consumer catches up, so a large
/// upload never sits in memory whole.
public final class HTTPBodyStream: Sendable {
    private struct State {
        var parts: [[UInt8]] = []
        var head = 0
        var buffered = 0
        var finished = false
        var failure: HTTPBodyStreamError?
        var consumerWaiting = false
        var producerPaused = false
        var delivered = 0
        var peakBuffered = 0
    }

    /// The declared Content-Length, nil for a chunked body.
    public let expectedLength: Int?
    let highWater: Int
    let lowWater: Int
    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    /// Called (on the consumer's thread) when a paused producer may read again.
    private let resume: @Sendable () -> Void

    init(expectedLength: Int?, highWater: Int = 256 * 1024, resume: @escaping @Sendable () -> Void) {
        self.expectedLength = expectedLength
        self.highWater = highWater
        lowWater = highWater / 4
        self.resume = resume
    }

    /// The next piece of the body, in order; nil after the last. Throws when the body cannot
    /// complete; the consumer should then discard what it stored.
    public func read() throws(HTTPBodyStreamError) -> [UInt8]? {
        while true {
            let (outcome, wakeProducer) = state.withLock { state -> (Result<[UInt8]?, HTTPBodyStreamError>?, Bool) in
                if state.head < state.parts.count {
                    let part = state.parts[state.head]
                    state.parts[state.head] = []
                    state.head += 1
                    if state.head == state.parts.count {
                        state.parts.removeAll(keepingCapacity: true)
                        state.head = 0
                    }
                    state.buffered -= part.count
                    state.delivered += part.count
                    var wake = false
                    if state.producerPaused, state.buffered <= lowWater {
                        state.producerPaused = false
                        wake = true
                    }
                    return (.success(part), wake)
                }
                if let failure = state.failure { return (.failure(failure), false) }
                if state.finished { return (.success(nil), false) }
                state.consumerWaiting = true
                return (nil, false)
            }
            if wakeProducer { resume() }
            if let outcome { return try outcome.get() }
            available.wait()
        }
    }

    /// Reads the rest of the body into memory (at most `limit` bytes) — for small bodies only.
    public func readAll(limit: Int = .max) throws(HTTPBodyStreamError) -> [UInt8] {
        var body: [UInt8] = []
        while let part = try read() {
            guard part.count <= limit - body.count else { throw .payloadTooLarge }
            body.append(contentsOf: part)
        }
        return body
    }

    // MARK: Producer (I/O thread)

    /// Queues a piece; returns false when the producer should stop reading until `resume`.
    func push(_ part: [UInt8]) -> Bool {
        let (wake, full) = state.withLock { state -> (Bool, Bool) in
            guard state.failure == nil else { return (false, false) }
            state.parts.append(part)
            state.buffered += part.count
            state.peakBuffered = Swift.max(state.peakBuffered, state.buffered)
            let full = state.buffered >= highWater
            if full { state.producerPaused = true }
            return (take(&state.consumerWaiting), full)
        }
        if wake { available.signal() }
        return !full
    }

    func finish() {
        let wake = state.withLock { state in
            state.finished = true
            return take(&state.consumerWaiting)
        }
        if wake { available.signal() }
    }

    func fail(_ error: HTTPBodyStreamError) {
        let wake = state.withLock { state -> Bool in
            guard !state.finished, state.failure == nil else { return false }
            state.failure = error
            state.parts = []
            state.head = 0
            state.buffered = 0
            return take(&state.consumerWaiting)
        }
        if wake { available.signal() }
    }

    /// The most body bytes that ever waited for the consumer at once.
    var peakBuffered: Int { state.withLock { $0.peakBuffered } }
}

private func take(_ flag: inout Bool) -> Bool {
    defer { flag = false }
    return flag
}
