/// The media type an upload declares in Content-Type, stored with the blob and sent back on
/// getBlob. The service never interprets it (the bytes are ciphertext); it only bounds it.
enum BlobMediaType {
    static let fallback = "application/octet-stream"
    static let maxLength = 255

    /// The trimmed Content-Type, or `fallback` when absent or empty; 400 InvalidRequest when it is
    /// longer than `maxLength`, has control or non-ASCII characters, or is not `type/subtype…`
    /// (RFC 9110 §8.3.1, tokens on both sides of the slash).
    static func from(contentType header: String?) throws(XRPCError) -> String {
        let value = (header ?? "").trimmed
        guard !value.isEmpty else { return fallback }
        guard value.utf8.count <= maxLength else { throw .invalidRequest("Content-Type longer than \(maxLength) bytes") }
        guard value.utf8.allSatisfy({ $0 == 0x09 || (0x20...0x7E).contains($0) }) else {
            throw .invalidRequest("Content-Type has invalid characters")
        }
        let essence = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .trimmed
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isTokenCharacter) }) else {
            throw .invalidRequest("Content-Type must be a media type (type/subtype)")
        }
        return value
    }

    /// RFC 9110 §5.6.2 tchar.
    private static func isTokenCharacter(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(c)
        }
    }
}

extension StringProtocol {
    fileprivate var trimmed: String {
        var slice = Substring(self)
        while let c = slice.first, c == " " || c == "\t" { slice.removeFirst() }
        while let c = slice.last, c == " " || c == "\t" { slice.removeLast() }
        return String(slice)
    }
}
