import Basics
import HTTP
import Synchronization

/// A request whose body streams to a worker holds that worker while the body arrives (uploadBlob,
/// and any authenticated call with a large body): at most `perUser` such requests at once per
/// caller (429) and `total` in all (503), both with Retry-After, so that slow uploads can never
/// hold every worker. After service auth and the caller's rate limit: a refused token never counts.
final class UploadLimit: XRPCMiddleware {
    let perUser: Int
    let total: Int
    let metrics: ServiceMetrics?
    private let open = Mutex<(total: Int, byCaller: [DID: Int])>((0, [:]))

    init(perUser: Int, total: Int, metrics: ServiceMetrics?) {
        self.perUser = max(1, perUser)
        self.total = max(1, total)
        self.metrics = metrics
    }

    func handle(_ request: HTTPRequest, _ context: XRPCRequestContext, next: XRPCNext) -> XRPCResult {
        guard context.body != nil, let caller = context.caller else { return next(request, context) }
        if let refusal = admit(caller) {
            metrics?.recordRateLimited(scope: "uploads")
            return XRPCResult(refusal, caller: caller)
        }
        defer { release(caller) }
        return next(request, context)
    }

    /// Streamed requests under way (tests).
    var openCount: Int { open.withLock { $0.total } }

    private func admit(_ caller: DID) -> XRPCError? {
        open.withLock { open in
            let mine = open.byCaller[caller, default: 0]
            guard mine < perUser else {
                return XRPCError(429, .rateLimitExceeded, "at most \(perUser) uploads at once per user",
                                 headers: [("Retry-After", "1")])
            }
            guard open.total < total else {
                return XRPCError(503, .serviceUnavailable, "too many uploads in progress, retry later",
                                 headers: [("Retry-After", "1")])
            }
            open.total += 1
            open.byCaller[caller] = mine + 1
            return nil
        }
    }

    private func release(_ caller: DID) {
        open.withLock { open in
            open.total -= 1
            let left = open.byCaller[caller, default: 1] - 1
            open.byCaller[caller] = left > 0 ? left : nil
        }
    }
}
