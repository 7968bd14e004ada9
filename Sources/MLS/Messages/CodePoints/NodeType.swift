/// RFC 9420 §7.8: `uint8 NodeType`.
public enum NodeType: UInt8, UInt8Selector, Sendable {
    case leaf = 1
    case parent = 2
}
