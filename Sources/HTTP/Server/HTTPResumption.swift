import Synchronization

/// How a responder on the worker pool sets a request aside: it returns nil instead of a response
/// and later, from any thread, either runs the request again (`resume`, e.g. once a DID document
/// it waits for is fetched) or answers it (`respond`, e.g. once the batch holding its write has
/// committed). Meanwhile it holds no worker. Only the first of those calls counts.
///
/// A request the responder starts on the I/O thread (`HTTPResponder.startsOnIOThread`) gets one
/// too, with `isOnIOThread` set: there it must not block, and hands whatever may block to
/// `runBlocking`.
public final class HTTPResumption: Sendable {
    /// How often the request was set aside before this run (0 on its first).
    public let attempt: Int
    private let again: @Sendable () -> Void
    private let answer: @Sendable (HTTPResponse) -> Void
    /// The worker pool the request runs on.
    private let workers: WorkerPool?
    /// True while the responder runs on an I/O thread, where nothing may block.
    public let isOnIOThread: Bool
    private let resumed = Atomic<Bool>(false)

    init(attempt: Int, again: @escaping @Sendable () -> Void, answer: @escaping @Sendable (HTTPResponse) -> Void,
         workers: WorkerPool? = nil, onIOThread: Bool = false) {
        self.attempt = attempt
        self.again = again
        self.answer = answer
        self.workers = workers
        isOnIOThread = onIOThread && workers != nil
    }

    /// Runs `job`, which may block (database, network), where blocking is allowed: at once on a
    /// worker, or queued on the worker pool from an I/O thread.
    public func runBlocking(_ job: @escaping @Sendable () -> Void) {
        guard isOnIOThread, let workers else { return job() }
        workers.submit(job)
    }

    /// Queues `job` on the worker pool, from any thread: the rest of a request whose handler waited,
    /// holding no worker, for something another thread fetched (a pending output).
    public func submit(_ job: @escaping @Sendable () -> Void) {
        guard let workers else { return job() }
        workers.submit(job)
    }

    /// Queues the request on the worker pool again. Call it after (or instead of) answering nil,
    /// never together with a response.
    public func resume() {
        guard !resumed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        again()
    }

    /// Answers the request that was set aside (the responder returned nil), as if a worker had.
    public func respond(_ response: HTTPResponse) {
        guard !resumed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        answer(response)
    }
}
