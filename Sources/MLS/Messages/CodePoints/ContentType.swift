/// RFC 9420 §6: `uint8 ContentType`, which selects the content that follows it.
public enum ContentType: UInt8, UInt8Selector, Sendable {
    case application = 1
    case proposal = 2
    case commit = 3
}
