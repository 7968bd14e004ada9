import HTTP

/// An unknown NSID is 404 MethodNotImplemented, a wrong verb 405 (queries take GET or HEAD,
/// procedures POST); after the IP limit, before any auth work.
struct MethodCheck: XRPCMiddleware {
    func handle(_ request: HTTPRequest, _ context: XRPCRequestContext, next: XRPCNext) -> XRPCResult {
        guard let method = context.method else { return XRPCResult(.methodNotImplemented(context.nsid)) }
        let expected: HTTPMethod = method.kind == .query ? .get : .post
        guard request.method == expected || (expected == .get && request.method == .head) else {
            return XRPCResult(XRPCError(405, .invalidRequest, "\(method.nsid) takes \(expected.rawValue)"))
        }
        return next(request, context)
    }
}
