#if canImport(Glibc)
import Glibc
#endif

/// How the body of the current request is delimited (RFC 9112 §6.3).
enum BodyFraming: Equatable, Sendable {
    case none
    case length(Int)
    case chunked
}

/// An incremental HTTP/1.1 request parser: a value type fed bytes, one request at a time.
///
/// `parse(_:)` consumes only complete units and returns how many bytes it used; the caller keeps the
/// rest and presents it again, followed by newly received bytes, on the next call. A request yields
/// `.head` first (the caller may then choose a body limit with `setMaxBodySize(_:)`) and `.body` when
/// the body is complete (empty when the request has none). After an error the parser stays failed.
public struct HTTPRequestParser: Sendable {
    public enum Event: Sendable {
        case head(HTTPRequestHead)
        /// The complete body; empty when the request has none or its body was streamed.
        case body([UInt8])
        /// A piece of a streamed body (after `streamBody()`), in order; `.body([])` follows the last.
        case bodyPart([UInt8])
    }

    private enum State: Sendable {
        case head
        case headComplete
        case contentLength(remaining: Int)
        case chunked(ChunkedBodyDecoder)
        /// A streamed chunked body ended after its last part was returned.
        case streamEnd
        case failed(HTTPParserError)
    }

    /// Upper bound on header fields per request, so 16 KiB of tiny fields cannot balloon memory.
    static let maxHeaderFields = 256
    /// Largest `.bodyPart`, whatever the caller has buffered.
    public static let maxBodyPartSize = 64 * 1024

    public let maxHeaderBytes: Int
    public let defaultMaxBodySize: Int

    private var state: State = .head
    private var maxBodySize: Int
    private var body: [UInt8] = []
    /// The current request's body is returned in `.bodyPart`s instead of accumulated.
    private var streaming = false
    /// Resume point of the search for the end of the header section (bytes before it were scanned).
    private var headScanOffset = 0
    /// Start of the request-line once found; -1 while only empty lines were seen.
    private var requestLineStart = -1

    /// Framing of the last parsed head.
    private(set) var framing: BodyFraming = .none
    /// Whether the connection may stay open after the last parsed request (RFC 9112 §9.3).
    public private(set) var keepAlive = true
    /// The last parsed head carried `Expect: 100-continue` on HTTP/1.1 and announces a body.
    public private(set) var expectsContinue = false

    public init(maxHeaderBytes: Int = 16_384, maxBodySize: Int = 1 << 20) {
        self.maxHeaderBytes = maxHeaderBytes
        defaultMaxBodySize = maxBodySize
        self.maxBodySize = maxBodySize
    }

    /// True between requests, before any byte of the next head was accepted.
    public var isAwaitingHead: Bool {
        if case .head = state { return true }
        return false
    }

    /// True after `.head` when the request announces a body.
    public var hasBody: Bool { framing != .none }

    /// Returns the body of the request whose head was just returned in `.bodyPart` events as it
    /// arrives, so it is never held whole.
    public mutating func streamBody() {
        guard case .headComplete = state else { return }
        streaming = true
    }

    /// Sets the body limit for the request whose head was just returned. Throws `.payloadTooLarge`
    /// at once when the declared Content-Length exceeds it.
    public mutating func setMaxBodySize(_ limit: Int) throws(HTTPParserError) {
        guard case .headComplete = state else { return }
        maxBodySize = Swift.max(0, limit)
        if case let .length(length) = framing, length > maxBodySize {
            state = .failed(.payloadTooLarge)
            throw .payloadTooLarge
        }
    }

    public mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPParserError) -> (consumed: Int, event: Event?) {
        do throws(HTTPParserError) {
            return try step(bytes)
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func step(_ bytes: UnsafeRawBufferPointer) throws(HTTPParserError) -> (consumed: Int, event: Event?) {
        switch state {
        case .head:
            return try parseHeadSection(bytes)
        case .headComplete:
            switch framing {
            case .none:
                return (0, finishRequest())
            case let .length(length):
                guard length <= maxBodySize else { throw .payloadTooLarge }
                if !streaming { body.reserveCapacity(Swift.min(length, 64 * 1024)) }
                state = .contentLength(remaining: length)
            case .chunked:
                state = .chunked(ChunkedBodyDecoder(maxBodySize: maxBodySize, maxTrailerBytes: maxHeaderBytes))
            }
            return try step(bytes)
        case let .contentLength(remaining):
            if streaming {
                let count = Swift.min(remaining, bytes.count, Self.maxBodyPartSize)
                if remaining == 0 { return (0, finishRequest()) }
                guard count > 0 else { return (0, nil) }
                state = .contentLength(remaining: remaining - count)
                return (count, .bodyPart(Array(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))))
            }
            let count = Swift.min(remaining, bytes.count)
            body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
            if count == remaining { return (count, finishRequest()) }
            state = .contentLength(remaining: remaining - count)
            return (count, nil)
        case var .chunked(decoder):
            state = .headComplete
            guard streaming else {
                let (consumed, done) = try decoder.decode(bytes, into: &body)
                if done { return (consumed, finishRequest()) }
                state = .chunked(decoder)
                return (consumed, nil)
            }
            // Streaming decodes at most one part's worth of input at a time, and goes on while that
            // yields only framing, so (consumed, nil) still means that more input is needed.
            // The window holds any single framing unit (a trailer line may be as long as the header limit).
            let window = Swift.max(Self.maxBodyPartSize, maxHeaderBytes + ChunkedBodyDecoder.maxChunkLineBytes)
            var consumed = 0
            var done = false
            while true {
                let input = UnsafeRawBufferPointer(rebasing: bytes[consumed...].prefix(window))
                let step = try decoder.decode(input, into: &body)
                consumed += step.consumed
                done = step.done
                if done || !body.isEmpty || step.consumed == 0 || consumed == bytes.count { break }
            }
            if !body.isEmpty {
                state = done ? .streamEnd : .chunked(decoder)
                let part = body
                body = []
                return (consumed, .bodyPart(part))
            }
            if done { return (consumed, finishRequest()) }
            state = .chunked(decoder)
            return (consumed, nil)
        case .streamEnd:
            return (0, finishRequest())
        case let .failed(error):
            throw error
        }
    }

    private mutating func finishRequest() -> Event {
        let complete = body
        body = []
        state = .head
        maxBodySize = defaultMaxBodySize
        streaming = false
        return .body(complete)
    }

    // MARK: Header section

    /// Finds the empty line ending the header section, then parses the lines before it.
    private mutating func parseHeadSection(_ bytes: UnsafeRawBufferPointer) throws(HTTPParserError) -> (consumed: Int, event: Event?) {
        var lineStart = headScanOffset
        while true {
            guard let lf = Self.indexOfLF(bytes, from: lineStart) else {
                if bytes.count >= maxHeaderBytes { throw .headerSectionTooLarge }
                headScanOffset = lineStart
                return (0, nil)
            }
            if lf >= maxHeaderBytes { throw .headerSectionTooLarge }
            // RFC 9112 §2.2: we require CRLF; a bare LF is rejected rather than guessed at.
            guard lf > lineStart, bytes[lf - 1] == ASCII.cr else { throw .invalidLineEnding }
            if lf - 1 == lineStart {
                if requestLineStart < 0 {
                    // RFC 9112 §2.2: ignore empty lines received before the request-line.
                    lineStart = lf + 1
                    continue
                }
                let end = lf + 1
                let head = try parseHead(bytes, from: requestLineStart)
                headScanOffset = 0
                requestLineStart = -1
                state = .headComplete
                return (end, .head(head))
            }
            if requestLineStart < 0 { requestLineStart = lineStart }
            lineStart = lf + 1
        }
    }

    /// Parses request-line and fields from `start`; every line up to the empty one is known to end in CRLF.
    private mutating func parseHead(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(HTTPParserError) -> HTTPRequestHead {
        let requestLineEnd = Self.indexOfLF(bytes, from: start)! - 1
        let line = try RequestLine(bytes, from: start, to: requestLineEnd)

        var headers = HTTPHeaders(reservingCapacity: 8)
        var semantics = FieldSemantics()
        var lineStart = requestLineEnd + 2
        while true {
            let lineEnd = Self.indexOfLF(bytes, from: lineStart)! - 1
            if lineEnd == lineStart { break }
            guard headers.count < Self.maxHeaderFields else { throw .headerSectionTooLarge }
            let (name, value) = try Self.parseField(bytes, from: lineStart, to: lineEnd)
            try semantics.inspect(bytes, name: name, value: value)
            headers.add(Self.string(bytes, name), Self.string(bytes, value))
            lineStart = lineEnd + 2
        }

        framing = try semantics.framing(version: line.version)
        keepAlive = semantics.keepAlive(version: line.version)
        expectsContinue = semantics.expectsContinue && line.version == .http1_1 && framing != .none
        let target = Self.string(bytes, line.target)
        return HTTPRequestHead(
            method: HTTPMethod(rawValue: Self.string(bytes, line.method)),
            target: target,
            // Without a query the path is the whole target: one string, not two.
            path: line.path == line.target ? target : Self.string(bytes, line.path),
            query: Self.string(bytes, line.query),
            version: line.version,
            headers: headers
        )
    }

    /// field-line = field-name ":" OWS field-value OWS (RFC 9112 §5).
    static func parseField(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws(HTTPParserError) -> (name: Range<Int>, value: Range<Int>) {
        // RFC 9112 §5.2: obs-fold is rejected.
        guard !ASCII.isWhitespace(bytes[start]) else { throw .obsoleteLineFolding }
        var colon = start
        while colon < end, ASCII.isTokenCharacter(bytes[colon]) { colon += 1 }
        // RFC 9112 §5.1: no whitespace is allowed between the field name and the colon.
        guard colon > start, colon < end, bytes[colon] == ASCII.colon else { throw .invalidHeaderName }
        var valueStart = colon + 1
        var valueEnd = end
        while valueStart < valueEnd, ASCII.isWhitespace(bytes[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart, ASCII.isWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
        guard ASCII.areFieldValueBytes(UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd])) else {
            throw .invalidHeaderValue
        }
        return (start..<colon, valueStart..<valueEnd)
    }

    static func indexOfLF(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(ASCII.lf), bytes.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    static func string(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}
