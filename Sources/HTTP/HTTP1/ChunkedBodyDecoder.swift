/// Decodes the chunked transfer coding (RFC 9112 §7.1) incrementally, appending chunk data to a body.
/// Chunk extensions and trailer fields are checked for well-formedness and discarded; both are bounded.
struct ChunkedBodyDecoder: Sendable {
    /// Longest chunk-size line accepted, extensions included.
    static let maxChunkLineBytes = 4096
    /// More hex digits than this cannot describe a chunk we would accept, and could overflow.
    static let maxChunkSizeDigits = 15

    private enum State: Sendable {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailer(bytesSeen: Int)
        case done
    }

    let maxBodySize: Int
    let maxTrailerBytes: Int
    private var state: State = .size
    /// Chunk data bytes announced so far; bounded by `maxBodySize` even when the body is streamed
    /// out between calls.
    private var total = 0

    init(maxBodySize: Int, maxTrailerBytes: Int) {
        self.maxBodySize = maxBodySize
        self.maxTrailerBytes = maxTrailerBytes
    }

    /// Consumes complete units of `bytes`; returns how many and whether the last chunk and trailers ended.
    mutating func decode(_ bytes: UnsafeRawBufferPointer, into body: inout [UInt8]) throws(HTTPParserError) -> (consumed: Int, done: Bool) {
        var offset = 0
        while true {
            switch state {
            case .size:
                guard let lf = HTTPRequestParser.indexOfLF(bytes, from: offset) else {
                    if bytes.count - offset > Self.maxChunkLineBytes { throw .invalidChunk }
                    return (offset, false)
                }
                guard lf - offset <= Self.maxChunkLineBytes else { throw .invalidChunk }
                let size = try Self.parseChunkLine(bytes, from: offset, lf: lf)
                offset = lf + 1
                if size == 0 {
                    state = .trailer(bytesSeen: 0)
                } else {
                    guard size <= maxBodySize - total else { throw .payloadTooLarge }
                    total += size
                    state = .data(remaining: size)
                }
            case let .data(remaining):
                let available = bytes.count - offset
                guard available > 0 else { return (offset, false) }
                let count = Swift.min(available, remaining)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
                offset += count
                state = count == remaining ? .dataEnd : .data(remaining: remaining - count)
            case .dataEnd:
                // chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
                let available = bytes.count - offset
                if available >= 1, bytes[offset] != ASCII.cr { throw .invalidChunk }
                guard available >= 2 else { return (offset, false) }
                guard bytes[offset + 1] == ASCII.lf else { throw .invalidChunk }
                offset += 2
                state = .size
            case let .trailer(bytesSeen):
                guard let lf = HTTPRequestParser.indexOfLF(bytes, from: offset) else {
                    if bytesSeen + bytes.count - offset > maxTrailerBytes { throw .headerSectionTooLarge }
                    return (offset, false)
                }
                let lineBytes = lf + 1 - offset
                guard bytesSeen + lineBytes <= maxTrailerBytes else { throw .headerSectionTooLarge }
                guard lf > offset, bytes[lf - 1] == ASCII.cr else { throw .invalidLineEnding }
                if lf - 1 == offset {
                    offset = lf + 1
                    state = .done
                    return (offset, true)
                }
                // RFC 9112 §7.1.2: trailer fields share the field-line grammar; we do not keep them.
                _ = try HTTPRequestParser.parseField(bytes, from: offset, to: lf - 1)
                offset = lf + 1
                state = .trailer(bytesSeen: bytesSeen + lineBytes)
            case .done:
                return (offset, true)
            }
        }
    }

    /// chunk-size [ chunk-ext ] CRLF, with chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] ).
    private static func parseChunkLine(_ bytes: UnsafeRawBufferPointer, from start: Int, lf: Int) throws(HTTPParserError) -> Int {
        guard lf > start, bytes[lf - 1] == ASCII.cr else { throw .invalidChunk }
        let end = lf - 1
        var index = start
        var size = 0
        while index < end, let digit = ASCII.hexValue(bytes[index]) {
            size = size << 4 | digit
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits <= maxChunkSizeDigits else { throw .invalidChunk }
        while index < end, ASCII.isWhitespace(bytes[index]) { index += 1 }
        guard index < end else { return size }
        guard bytes[index] == ASCII.semicolon else { throw .invalidChunk }
        for position in index..<end where !ASCII.isFieldValueByte(bytes[position]) {
            throw .invalidChunk
        }
        return size
    }
}
