/// request-line = method SP request-target SP HTTP-version (RFC 9112 §3), as byte ranges.
struct RequestLine {
    var method: Range<Int>
    var target: Range<Int>
    var path: Range<Int>
    var query: Range<Int>
    var version: HTTPVersion

    init(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws(HTTPParserError) {
        var index = start
        while index < end, ASCII.isTokenCharacter(bytes[index]) { index += 1 }
        guard index < end, bytes[index] == ASCII.space else {
            throw index == start || index == end ? .invalidRequestLine : .invalidMethod
        }
        guard index > start else { throw .invalidMethod }
        method = start..<index

        let targetStart = index + 1
        index = targetStart
        var questionMark: Int?
        while index < end, bytes[index] != ASCII.space {
            guard ASCII.isTargetByte(bytes[index]) else { throw .invalidTarget }
            if questionMark == nil, bytes[index] == ASCII.questionMark { questionMark = index }
            index += 1
        }
        guard index > targetStart else { throw .invalidTarget }
        guard index < end else { throw .invalidRequestLine }
        target = targetStart..<index
        if let mark = questionMark {
            path = targetStart..<mark
            query = (mark + 1)..<index
        } else {
            path = target
            query = index..<index
        }

        version = try Self.parseVersion(bytes, from: index + 1, to: end)
    }

    /// HTTP-version = "HTTP" "/" DIGIT "." DIGIT, case-sensitive (RFC 9112 §2.3).
    static func parseVersion(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) throws(HTTPParserError) -> HTTPVersion {
        guard end - start == 8,
              bytes[start] == 0x48, bytes[start + 1] == 0x54, bytes[start + 2] == 0x54, bytes[start + 3] == 0x50,
              bytes[start + 4] == 0x2F, bytes[start + 6] == 0x2E
        else { throw .invalidVersion }
        let major = bytes[start + 5], minor = bytes[start + 7]
        guard (0x30...0x39).contains(major), (0x30...0x39).contains(minor) else { throw .invalidVersion }
        let version = HTTPVersion(major: Int(major - 0x30), minor: Int(minor - 0x30))
        guard version == .http1_1 || version == .http1_0 else { throw .unsupportedVersion }
        return version
    }
}
