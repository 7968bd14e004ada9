/// RFC 9420 §7.2: the `uint8 LeafNodeSource` selector.
public enum LeafNodeSourceType: UInt8, UInt8Selector, Sendable {
    case keyPackage = 1
    case update = 2
    case commit = 3
}
