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
        let nsid = context.nsid, requestID = context.requestID, known = context.method != nil
        return result.then { [metrics, log] result in
            Self.record(result, nsid: nsid, requestID: requestID, known: known, start: start, metrics: metrics, log: log)
        }
    }

    private static func record(_ result: XRPCResult, nsid: String, requestID: String, known: Bool, start: UInt64,
                               metrics: ServiceMetrics?, log: Log) -> XRPCResult {
        let elapsed = DispatchTime.now().uptimeNanoseconds &- start
        let status = result.response.status
        if let metrics {
            metrics.recordRequest(nsid: nsid, status: status, nanoseconds: elapsed)
            if commitMethods.contains(nsid) {
                if status == 200 {
                    metrics.epochsAdvanced.increment()
                } else if (400..<500).contains(status), status != 401, status != 429, let name = result.errorName {
                    metrics.commitRejections.increment(name.rawValue)
                }
            }
        }
        if known {
            RequestLogEntry(requestID: requestID, nsid: nsid, status: status,
                            errorName: result.errorName?.rawValue, durationMicros: elapsed / 1000,
                            caller: result.caller?.rawValue).write(to: log)
        }
        return result
    }
}
