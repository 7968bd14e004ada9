/// Why a document is not acceptable JSON, and the byte offset where that was found.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        case unexpectedEnd = "unexpected end of input"
        case unexpectedByte = "unexpected byte"
        case invalidString = "invalid string"
        case invalidUTF8 = "invalid UTF-8"
        case invalidNumber = "invalid number"
        case duplicateKey = "duplicate object key"
        case tooDeep = "nesting too deep"
        case trailingBytes = "bytes after the JSON value"
    }

    public let reason: Reason
    public let offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(reason.rawValue) at byte \(offset)" }
}
