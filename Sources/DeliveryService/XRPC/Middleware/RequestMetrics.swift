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
        let elapsed = DispatchTime.now().uptimeNanoseconds &- start
        let status = result.response.status
        if let metrics {
            metrics.recordRequest(nsid: context.nsid, status: status, nanoseconds: elapsed)
            if Self.commitMethods.contains(context.nsid) {
                if status == 200 {
                    metrics.epochsAdvanced.increment()
                } else if (400..<500).contains(status), status != 401, status != 429, let name = result.errorName {
                    metrics.commitRejections.increment(name.rawValue)
                }
            }
        }
        if context.method != nil {
            RequestLogEntry(requestID: context.requestID, nsid: context.nsid, status: status,
                            errorName: result.errorName?.rawValue, durationMicros: elapsed / 1000,
                            caller: result.caller?.rawValue).write(to: log)
        }
        return result
    }
}
