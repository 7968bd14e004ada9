/// RFC 9420 §8.4: `uint8 PSKType`.
public enum PSKType: UInt8, UInt8Selector, Sendable {
    case external = 1
    case resumption = 2
}
