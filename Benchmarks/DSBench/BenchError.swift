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
