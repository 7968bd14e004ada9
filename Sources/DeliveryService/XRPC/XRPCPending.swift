import Dispatch
import Synchronization

/// A handler's output that comes later (`XRPCOutput.pending`): the handler returns at once with the
/// work that produces it, and the router starts that work once the answer's way back is wired
/// (after the middleware steps and `HTTPResumption.respond`), so whatever the work does after it
/// completes (sendMessage's batch leader runs the next batches) never holds this answer back. The
/// work completes on any thread, once; meanwhile the request holds no worker.
public struct XRPCPendingOutput: Sendable {
    public typealias Outcome = Result<XRPCOutput, any Error>

    let start: @Sendable (_ complete: @escaping @Sendable (Outcome) -> Void) -> Void

    /// `start` is given where the output (or what the handler would have thrown) goes.
    public init(_ start: @escaping @Sendable (_ complete: @escaping @Sendable (Outcome) -> Void) -> Void) {
        self.start = start
    }
}

/// The result of a request whose handler's output is pending, travelling back up the middleware
/// chain: each step that looks at results adds what it does to them (`XRPCResult.then`), then the
/// router says where the final result goes (`deliver`) and starts the work (`start`). Whichever
/// comes last of the completion and `deliver` runs the steps, in chain order, and delivers.
final class XRPCPendingResult: Sendable {
    /// The handler's work, with its completion mapped to a result (`XRPCRouter.invoke`).
    let work: @Sendable (XRPCPendingResult) -> Void

    init(_ work: @escaping @Sendable (XRPCPendingResult) -> Void) {
        self.work = work
    }

    /// Starts the handler's work: after `deliver`.
    func start() { work(self) }

    private struct State {
        var steps: [@Sendable (XRPCResult) -> XRPCResult] = []
        var result: XRPCResult?
        var receiver: (@Sendable (XRPCResult) -> Void)?
    }

    private let state = Mutex(State())

    /// Added on the way back up the chain, innermost first, before `deliver`.
    func addStep(_ step: @escaping @Sendable (XRPCResult) -> XRPCResult) {
        state.withLock { $0.steps.append(step) }
    }

    /// The end of the chain's own result, once the handler's output is there.
    func complete(_ result: XRPCResult) {
        let ready = state.withLock { state -> (steps: [@Sendable (XRPCResult) -> XRPCResult], receiver: @Sendable (XRPCResult) -> Void)? in
            state.result = result
            return state.receiver.map { (state.steps, $0) }
        }
        if let ready { ready.receiver(ready.steps.reduce(result) { $1($0) }) }
    }

    /// Where the final result goes: set once, by the router, after every step was added.
    func deliver(to receiver: @escaping @Sendable (XRPCResult) -> Void) {
        let ready = state.withLock { state -> (steps: [@Sendable (XRPCResult) -> XRPCResult], result: XRPCResult)? in
            state.receiver = receiver
            return state.result.map { (state.steps, $0) }
        }
        if let ready { receiver(ready.steps.reduce(ready.result) { $1($0) }) }
    }

    /// Starts the work and blocks until the final result is there: for callers that cannot set a
    /// request aside.
    func wait() -> XRPCResult {
        let done = DispatchSemaphore(value: 0)
        let final = Mutex<XRPCResult?>(nil)
        deliver { result in
            final.withLock { $0 = result }
            done.signal()
        }
        start()
        done.wait()
        return final.withLock { $0! }
    }
}
