extension HTTPRequestParser {
    /// Parses every complete request in `bytes` as a connection would, handing the parser at most
    /// `feedSize` new bytes per read. Returns the requests and how many trailing bytes were left
    /// unconsumed (an incomplete request). Used by tests and the fuzz target.
    public static func parseMessages(
        _ bytes: [UInt8], feedSize: Int = .max, maxHeaderBytes: Int = 16_384, maxBodySize: Int = 1 << 20
    ) throws(HTTPParserError) -> (requests: [HTTPRequest], unconsumed: Int) {
        var parser = HTTPRequestParser(maxHeaderBytes: maxHeaderBytes, maxBodySize: maxBodySize)
        var requests: [HTTPRequest] = []
        var buffer: [UInt8] = []
        var fed = 0
        var head: HTTPRequestHead?
        let step = Swift.max(1, feedSize)
        while fed < bytes.count {
            let next = Swift.min(bytes.count, fed + Swift.min(step, bytes.count - fed))
            buffer.append(contentsOf: bytes[fed..<next])
            fed = next
            while true {
                let result = try buffer.withUnsafeBytes { raw in
                    Result { () throws(HTTPParserError) in try parser.parse(raw) }
                }.get()
                buffer.removeFirst(result.consumed)
                guard let event = result.event else { break }
                switch event {
                case let .head(parsed):
                    head = parsed
                case let .body(body):
                    if let head { requests.append(HTTPRequest(head: head, body: body)) }
                    head = nil
                case .bodyPart:
                    break
                }
            }
        }
        return (requests, buffer.count)
    }
}
