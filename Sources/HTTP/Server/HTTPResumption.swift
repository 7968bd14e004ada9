import Synchronization

/// A request its responder may set aside while it waits for something that must not hold a worker
/// thread (a document fetched from elsewhere, say). `respond(to:resumption:)` returns nil after
/// arranging for `resume()` to be called once the request may run; the server then runs the
/// responder for it again on the worker pool, with `attempt` one higher. Meanwhile the request
/// holds no thread: only its connection, which waits as for any answer being computed.
public final class HTTPResumption: Sendable {
    /// How often the request was set aside before this run (0 on its first).
    public let attempt: Int
    private let again: @Sendable () -> Void
    private let resumed = Atomic<Bool>(false)

    init(attempt: Int, again: @escaping @Sendable () -> Void) {
        self.attempt = attempt
        self.again = again
    }

    /// Queues the request on the worker pool again. Only the first call counts; call it after (or
    /// instead of) answering nil, never together with a response.
    public func resume() {
        guard !resumed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        again()
    }
}
