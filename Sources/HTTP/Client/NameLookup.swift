import Dispatch
import Foundation
import Synchronization

/// Name resolution a deadline can abandon. getaddrinfo(3) blocks for as long as the system resolver
/// likes (resolv.conf's timeout × attempts × servers: tens of seconds against a DNS server that does
/// not answer), so names are looked up on a few threads of their own: the caller waits for the
/// answer only until its deadline, then walks away, and the thread's late answer is dropped. At most
/// `maxPending` lookups wait or run at once (stuck ones included); beyond that a lookup is refused
/// at once, so a resolver that hangs costs a bounded number of threads and never the caller's time.
final class NameLookup: @unchecked Sendable {
    typealias Lookup = @Sendable (_ host: String, _ port: UInt16) throws(HTTPClientError) -> [HTTPClientEndpoint]

    /// The process's lookups (DID documents, the CLI).
    static let shared = NameLookup(threads: 4, maxPending: 64) { host, port throws(HTTPClientError) in
        try HTTPClientEndpoint.resolve(host: host, port: port, numericOnly: false)
    }

    private final class Job: Sendable {
        let host: String
        let port: UInt16
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<[HTTPClientEndpoint], HTTPClientError>?>(nil)
        let abandoned = Atomic<Bool>(false)

        init(host: String, port: UInt16) {
            self.host = host
            self.port = port
        }
    }

    let maxThreads: Int
    let maxPending: Int
    /// How long an idle thread waits for work before it ends.
    let idleSeconds: Double
    private let lookup: Lookup
    // Guarded by `condition`: the only mutable state, touched only while holding its lock.
    private let condition = NSCondition()
    private var queue: [Job] = []
    private var pending = 0
    private var threads = 0
    private var idle = 0

    init(threads: Int, maxPending: Int, idleSeconds: Double = 30, lookup: @escaping Lookup) {
        maxThreads = max(1, threads)
        self.maxPending = max(1, maxPending)
        self.idleSeconds = idleSeconds
        self.lookup = lookup
    }

    /// Every address of `host`, or `.timeout` once `deadline` passes while the lookup still runs.
    /// IP literals are converted on the caller's thread (getaddrinfo never asks DNS for them).
    func resolve(host: String, port: UInt16, isLiteral: Bool, deadline: HTTPClientDeadline) throws(HTTPClientError) -> [HTTPClientEndpoint] {
        if isLiteral { return try HTTPClientEndpoint.resolve(host: host, port: port, numericOnly: true) }
        let job = Job(host: host, port: port)
        guard enqueue(job) else { throw .io("name lookups busy") }
        let milliseconds = Int(try deadline.remainingMilliseconds())
        if job.done.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
            job.abandoned.store(true, ordering: .releasing)
            throw .timeout
        }
        return try job.result.withLock { $0! }.get()
    }

    /// Lookups queued or running, stuck ones included.
    var pendingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return pending
    }

    private func enqueue(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard pending < maxPending else { return false }
        queue.append(job)
        pending += 1
        // A woken thread counts as idle until it runs: one idle thread per queued job, or more threads.
        if idle < queue.count, threads < maxThreads {
            threads += 1
            let thread = Thread { [self] in work() }
            thread.name = "name-lookup"
            thread.start()
        }
        condition.signal()
        return true
    }

    private func work() {
        condition.lock()
        while true {
            while queue.isEmpty {
                idle += 1
                let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleSeconds))
                idle -= 1
                if !signalled, queue.isEmpty {
                    threads -= 1
                    condition.unlock()
                    return
                }
            }
            let job = queue.removeFirst()
            condition.unlock()
            // A caller that already gave up while the job queued needs no answer.
            if !job.abandoned.load(ordering: .acquiring) {
                let result = Result { () throws(HTTPClientError) in try lookup(job.host, job.port) }
                job.result.withLock { $0 = result }
                job.done.signal()
            }
            condition.lock()
            pending -= 1
        }
    }
}
