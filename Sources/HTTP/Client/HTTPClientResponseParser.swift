/// An incremental HTTP/1.1 response parser (RFC 9112), fed bytes as they arrive. Strict where
/// leniency would let a hostile server confuse framing: CRLF line ends, no obs-fold, one
/// Content-Length, Transfer-Encoding only `chunked` and never together with Content-Length. Header
/// fields and the chunked coding go through the server's own parsers (`HTTPRequestParser.parseField`,
/// `ChunkedBodyDecoder`).
struct HTTPClientResponseParser {
    static let maxHeadSize = 16 * 1024

    private enum State {
        case head
        case fixed(remaining: Int)
        case chunked(ChunkedBodyDecoder)
        case untilClose
        case done
    }

    let maxBodySize: Int
    private var state = State.head
    private var pending: [UInt8] = []
    private var status = 0
    private var headers: [(String, String)] = []
    private var body: [UInt8] = []

    init(maxBodySize: Int) {
        self.maxBodySize = maxBodySize
    }

    /// Consumes bytes; returns the response once it is complete.
    mutating func feed(_ bytes: [UInt8]) throws(HTTPClientError) -> HTTPClientResponse? {
        pending.append(contentsOf: bytes)
        var position = 0
        defer { pending.removeSubrange(0..<position) }
        while true {
            switch state {
            case .head:
                guard let end = Self.find([13, 10, 13, 10], in: pending, from: position) else {
                    guard pending.count - position <= Self.maxHeadSize else { throw .malformedResponse("header section too large") }
                    return nil
                }
                guard end - position <= Self.maxHeadSize else { throw .malformedResponse("header section too large") }
                try parseHead(pending[position..<end])
                position = end + 4
                state = try bodyState()
            case .fixed(let remaining):
                let take = min(remaining, pending.count - position)
                body.append(contentsOf: pending[position..<position + take])
                position += take
                if remaining - take == 0 {
                    state = .done
                } else {
                    state = .fixed(remaining: remaining - take)
                    return nil
                }
            case .chunked(var decoder):
                let outcome = pending[position...].withUnsafeBytes { bytes in
                    Result { () throws(HTTPParserError) in try decoder.decode(bytes, into: &body) }
                }
                let step: (consumed: Int, done: Bool)
                switch outcome {
                case .success(let value): step = value
                case .failure(.payloadTooLarge): throw .responseTooLarge
                case .failure(let error): throw .malformedResponse("bad chunked body: \(error)")
                }
                position += step.consumed
                state = step.done ? .done : .chunked(decoder)
                if !step.done { return nil }
            case .untilClose:
                guard pending.count - position <= maxBodySize - body.count else { throw .responseTooLarge }
                body.append(contentsOf: pending[position...])
                position = pending.count
                return nil
            case .done:
                return HTTPClientResponse(status: status, headers: headers, body: body)
            }
        }
    }

    /// Called when the peer closes the connection.
    mutating func finish() throws(HTTPClientError) -> HTTPClientResponse {
        switch state {
        case .untilClose, .done:
            state = .done
            return HTTPClientResponse(status: status, headers: headers, body: body)
        case .head:
            throw .malformedResponse("connection closed before the response head")
        default:
            throw .malformedResponse("connection closed before the end of the body")
        }
    }

    private mutating func parseHead(_ head: ArraySlice<UInt8>) throws(HTTPClientError) {
        var lines = Self.split(head)
        guard !lines.isEmpty else { throw .malformedResponse("empty head") }
        let statusLine = lines.removeFirst()
        // RFC 9112 §4: HTTP-version SP 3DIGIT SP [reason-phrase]
        let line = Array(statusLine)
        guard line.count >= 12,
              Array(line[0..<7]) == Array("HTTP/1.".utf8),
              line[7] == UInt8(ascii: "0") || line[7] == UInt8(ascii: "1"),
              line[8] == UInt8(ascii: " "),
              line.count == 12 || line[12] == UInt8(ascii: " ")
        else { throw .malformedResponse("bad status line") }
        let digits = line[9..<12]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw .malformedResponse("bad status code")
        }
        status = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard (100...599).contains(status) else { throw .malformedResponse("bad status code") }

        for line in lines {
            guard !line.isEmpty else { throw .malformedResponse("bad header line") }
            let field = line.withUnsafeBytes { bytes in
                Result { () throws(HTTPParserError) in
                    let (name, value) = try HTTPRequestParser.parseField(bytes, from: 0, to: bytes.count)
                    return (HTTPRequestParser.string(bytes, name), HTTPRequestParser.string(bytes, value))
                }
            }
            guard case .success(let header) = field else { throw .malformedResponse("bad header line") }
            headers.append(header)
        }
    }

    private func bodyState() throws(HTTPClientError) -> State {
        // RFC 9110 §15.4: redirects are not followed here; a 3xx is the caller's failure.
        if (300...399).contains(status) { throw .redirectRefused(status: status) }
        // Interim 1xx responses are never expected for a plain GET.
        if status < 200 { throw .malformedResponse("unexpected interim response \(status)") }
        // RFC 9112 §6.3: 204 and 304 have no body.
        if status == 204 || status == 304 { return .done }

        let transferEncodings = headers.filter { $0.0.lowercased() == "transfer-encoding" }.map { $0.1.lowercased() }
        let contentLengths = headers.filter { $0.0.lowercased() == "content-length" }.map(\.1)
        if !transferEncodings.isEmpty {
            guard contentLengths.isEmpty else { throw .malformedResponse("both Content-Length and Transfer-Encoding") }
            guard transferEncodings == ["chunked"] else { throw .malformedResponse("unsupported Transfer-Encoding") }
            return .chunked(ChunkedBodyDecoder(maxBodySize: maxBodySize, maxTrailerBytes: Self.maxHeadSize))
        }
        if let length = contentLengths.first {
            guard contentLengths.allSatisfy({ $0 == length }),
                  !length.isEmpty, length.utf8.count <= 18, length.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let value = Int(length)
            else { throw .malformedResponse("bad Content-Length") }
            guard value <= maxBodySize else { throw .responseTooLarge }
            return value == 0 ? .done : .fixed(remaining: value)
        }
        return .untilClose
    }

    private static func split(_ head: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = head.startIndex
        while let end = find([13, 10], in: head, from: start) {
            lines.append(head[start..<end])
            start = end + 2
        }
        lines.append(head[start..<head.endIndex])
        return lines
    }

    private static func find<C: RandomAccessCollection>(_ needle: [UInt8], in haystack: C, from start: Int) -> Int?
    where C.Element == UInt8, C.Index == Int {
        guard haystack.endIndex - start >= needle.count else { return nil }
        var index = start
        while index <= haystack.endIndex - needle.count {
            if haystack[index] == needle[0] {
                var matches = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matches = false
                    break
                }
                if matches { return index }
            }
            index += 1
        }
        return nil
    }
}
