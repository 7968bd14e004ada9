/// RFC 9420 §6 and §17.2: `uint16 WireFormat`.
public struct WireFormat: UInt16CodePoint, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let reserved = WireFormat(rawValue: 0)
    public static let publicMessage = WireFormat(rawValue: 1)
    public static let privateMessage = WireFormat(rawValue: 2)
    public static let welcome = WireFormat(rawValue: 3)
    public static let groupInfo = WireFormat(rawValue: 4)
    public static let keyPackage = WireFormat(rawValue: 5)
}
