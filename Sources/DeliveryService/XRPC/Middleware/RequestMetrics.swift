import Dispatch
import HTTP

/// The outermost step: times every `/xrpc/` request, counts it by NSID and status (unknown NSIDs
/// as `_unknown`), counts accepted and rejected commits, and writes the one log line per request to a
/// known method.
struct RequestMetrics: XRPCMiddleware {
    let metrics: ServiceMetrics?
    let log: Log

    /// Methods whose success applies a commit (one epoch each); their 4xx answers are commit rejections.
    static let commitMethods: Set<String> = [
        "blue.catbird.mls.addMembers", "blue.catbird.mls.removeMember", "blue.catbird.mls.commitGroupChange",
        "blue.catbird.mls.processExternalCommit",
    ]

    func handle(_ request: HTTPRequest, _ context: XRPCRequestContext, next: XRPCNext) -> XRPCResult {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = next(request, context)
        // Counted and logged when it runs again and is answered.
        if result.isSetAside { return result }
        let entry = Entry(nsid: context.nsid, id: context.id, known: context.method != nil, service: metrics,
                          metrics: context.metrics, start: start)
        // Most results are final: recorded here, without a closure for later.
        guard result.pending != nil else { return entry.record(result, log: log) }
        return result.then { [log] result in entry.record(result, log: log) }
    }

    /// What the record of a request needs from its context.
    private struct Entry: Sendable {
        let nsid: String
        let id: RequestID
        let known: Bool
        let service: ServiceMetrics?
        let metrics: MethodMetrics?
        let start: UInt64

        func record(_ result: XRPCResult, log: Log) -> XRPCResult {
            let elapsed = DispatchTime.now().uptimeNanoseconds &- start
            let status = result.response.status
            if let service, let metrics {
                metrics.record(status: status, nanoseconds: elapsed)
                if metrics.appliesCommits {
                    if status == 200 {
                        service.epochsAdvanced.increment()
                    } else if (400..<500).contains(status), status != 401, status != 429, let name = result.errorName {
                        service.commitRejections.increment(name.rawValue)
                    }
                }
            }
            if known, log.isEnabled(.info) {
                RequestLogEntry(requestID: id.description, nsid: nsid, status: status,
                                errorName: result.errorName?.rawValue, durationMicros: elapsed / 1000,
                                caller: result.caller?.rawValue).write(to: log)
            }
            return result
        }
    }
}
