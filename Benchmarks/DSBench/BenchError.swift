/// What stops a bench run: bad arguments or a server answer the set-up did not expect.
enum BenchError: Error, CustomStringConvertible {
    case usage(String)
    case call(nsid: String, status: Int, body: String)
    case unexpected(String)

    var description: String {
        switch self {
        case .usage(let text): "usage: \(text)"
        case .call(let nsid, let status, let body): "\(nsid) answered \(status): \(body.prefix(300))"
        case .unexpected(let text): text
        }
    }
}

extension BenchError {
    /// Whether `error` is the service's 503: a call's answer, or a refused WebSocket upgrade.
    static func isUnavailable(_ error: any Error) -> Bool {
        switch error as? BenchError {
        case .call(_, 503, _): true
        case .unexpected(let text): text.contains(" 503 ")
        default: false
        }
    }
}
