/// An incremental HTTP/1.1 response parser (RFC 9112), fed bytes as they arrive. Strict where
/// leniency would let a hostile server confuse framing: CRLF line ends, no obs-fold, one
/// Content-Length, Transfer-Encoding only `chunked` and never together with Content-Length.
struct HTTPClientResponseParser {
    static let maxHeadSize = 16 * 1024
    static let maxChunkLineSize = 1024

    private enum State {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
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
            case .chunkSize:
                guard let line = try takeLine(from: &position) else { return nil }
                let size = try Self.chunkSize(line)
                guard size <= maxBodySize - body.count else { throw .responseTooLarge }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let take = min(remaining, pending.count - position)
                body.append(contentsOf: pending[position..<position + take])
                position += take
                if remaining - take == 0 {
                    state = .chunkDataEnd
                } else {
                    state = .chunkData(remaining: remaining - take)
                    return nil
                }
            case .chunkDataEnd:
                guard let line = try takeLine(from: &position) else { return nil }
                guard line.isEmpty else { throw .malformedResponse("chunk data longer than its size") }
                state = .chunkSize
            case .trailers:
                // RFC 9112 §7.1.2: trailer fields are read and discarded.
                guard let line = try takeLine(from: &position) else { return nil }
                if line.isEmpty { state = .done }
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
            // RFC 9112 §5.2: obs-fold is rejected; §5.1: no whitespace before the colon.
            guard let first = line.first, first != UInt8(ascii: " "), first != UInt8(ascii: "\t"),
                  let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[line.startIndex..<colon].allSatisfy(Self.isTokenByte)
            else { throw .malformedResponse("bad header line") }
            let value = line[(colon + 1)...].drop { $0 == 32 || $0 == 9 }
            let trimmed = value.reversed().drop { $0 == 32 || $0 == 9 }.reversed()
            guard trimmed.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
                throw .malformedResponse("control character in header value")
            }
            headers.append((String(decoding: line[line.startIndex..<colon], as: UTF8.self),
                            String(decoding: trimmed, as: UTF8.self)))
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
            return .chunkSize
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

    /// A CRLF-terminated line starting at `position`, without the CRLF.
    private func takeLine(from position: inout Int) throws(HTTPClientError) -> ArraySlice<UInt8>? {
        guard let end = Self.find([13, 10], in: pending, from: position) else {
            guard pending.count - position <= Self.maxChunkLineSize else { throw .malformedResponse("chunk line too long") }
            return nil
        }
        guard end - position <= Self.maxChunkLineSize else { throw .malformedResponse("chunk line too long") }
        let line = pending[position..<end]
        position = end + 2
        return line
    }

    /// RFC 9112 §7.1: chunk-size [ chunk-ext ]
    private static func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPClientError) -> Int {
        let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != 32 && $0 != 9 }
        guard !digits.isEmpty, digits.count <= 15 else { throw .malformedResponse("bad chunk size") }
        var size = 0
        for byte in digits {
            guard let value = hexValue(byte) else { throw .malformedResponse("bad chunk size") }
            size = size << 4 | value
        }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // RFC 9110 §5.6.2 tchar
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
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
