/// What the server must know from the header fields to frame the message and manage the connection:
/// Content-Length, Transfer-Encoding, Host, Connection and Expect, read straight from the bytes.
struct FieldSemantics {
    private var contentLength: Int?
    private var sawTransferEncoding = false
    private var chunkedCount = 0
    private var chunkedIsFinal = false
    private var otherCoding = false
    private var hostCount = 0
    private var connectionClose = false
    private var connectionKeepAlive = false
    private(set) var expectsContinue = false

    /// Content-Length values beyond this many digits cannot be a body we would accept.
    private static let maxContentLengthDigits = 18

    mutating func inspect(_ bytes: UnsafeRawBufferPointer, name: Range<Int>, value: Range<Int>) throws(HTTPParserError) {
        switch name.count {
        case 4 where Self.matches(bytes, name, "host"):
            hostCount += 1
        case 6 where Self.matches(bytes, name, "expect"):
            // RFC 9110 §10.1.1: only 100-continue is defined.
            guard Self.matches(bytes, value, "100-continue") else { throw .expectationFailed }
            expectsContinue = true
        case 10 where Self.matches(bytes, name, "connection"):
            Self.forEachListElement(bytes, value) { element in
                if Self.matches(bytes, element, "close") { connectionClose = true }
                if Self.matches(bytes, element, "keep-alive") { connectionKeepAlive = true }
            }
        case 14 where Self.matches(bytes, name, "content-length"):
            // RFC 9112 §6.3: a repeated or non-numeric Content-Length is unrecoverable framing.
            guard contentLength == nil, !value.isEmpty, value.count <= Self.maxContentLengthDigits else {
                throw .invalidContentLength
            }
            var length = 0
            for index in value {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { throw .invalidContentLength }
                length = length * 10 + Int(byte - 0x30)
            }
            contentLength = length
        case 17 where Self.matches(bytes, name, "transfer-encoding"):
            sawTransferEncoding = true
            var invalid = false
            Self.forEachListElement(bytes, value) { element in
                if Self.matches(bytes, element, "chunked") {
                    chunkedCount += 1
                    chunkedIsFinal = true
                } else {
                    if !element.allSatisfy({ ASCII.isTokenCharacter(bytes[$0]) || bytes[$0] == ASCII.semicolon || bytes[$0] == 0x3D || ASCII.isWhitespace(bytes[$0]) }) {
                        invalid = true
                    }
                    otherCoding = true
                    chunkedIsFinal = false
                }
            }
            if invalid { throw .invalidTransferEncoding }
        default:
            break
        }
    }

    /// RFC 9112 §6.3 and §3.2: decides the body framing or rejects the request.
    func framing(version: HTTPVersion) throws(HTTPParserError) -> BodyFraming {
        if version == .http1_1, hostCount != 1 { throw .invalidHost }
        if version == .http1_0, hostCount > 1 { throw .invalidHost }
        if sawTransferEncoding {
            // RFC 9112 §6.1: Content-Length with Transfer-Encoding is a smuggling vector; reject.
            if contentLength != nil { throw .contentLengthWithTransferEncoding }
            // RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 means faulty framing.
            if version == .http1_0 { throw .invalidTransferEncoding }
            // RFC 9112 §6.3: chunked must be final, and applied once (§7).
            guard chunkedIsFinal, chunkedCount == 1 else { throw .invalidTransferEncoding }
            if otherCoding { throw .unsupportedTransferEncoding }
            return .chunked
        }
        if let contentLength, contentLength > 0 { return .length(contentLength) }
        return .none
    }

    /// RFC 9112 §9.3: HTTP/1.1 persists unless "close"; HTTP/1.0 only with "keep-alive".
    func keepAlive(version: HTTPVersion) -> Bool {
        if connectionClose { return false }
        return version == .http1_1 || connectionKeepAlive
    }

    /// Calls `body` with each non-empty, OWS-trimmed element of a comma-separated list (RFC 9110 §5.6.1).
    private static func forEachListElement(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>, _ body: (Range<Int>) -> Void) {
        var start = value.lowerBound
        while start <= value.upperBound {
            var end = start
            while end < value.upperBound, bytes[end] != ASCII.comma { end += 1 }
            var lower = start, upper = end
            while lower < upper, ASCII.isWhitespace(bytes[lower]) { lower += 1 }
            while upper > lower, ASCII.isWhitespace(bytes[upper - 1]) { upper -= 1 }
            if lower < upper { body(lower..<upper) }
            start = end + 1
        }
    }

    /// ASCII case-insensitive comparison of a byte range with a lowercase literal.
    private static func matches(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        guard range.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        var offset = 0
        for index in range {
            guard ASCII.lowercased(bytes[index]) == expected[offset] else { return false }
            offset += 1
        }
        return true
    }
}
