/// RFC 9420 §6: `uint16 ProtocolVersion`; unknown versions are kept.
public struct ProtocolVersion: UInt16CodePoint, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let reserved = ProtocolVersion(rawValue: 0)
    public static let mls10 = ProtocolVersion(rawValue: 1)
}
