/// RFC 9420 §13 and §17.3: `uint16 ExtensionType`. Extensions carry their data as an opaque vector,
/// so unknown and GREASE types always round-trip.
public struct ExtensionType: UInt16CodePoint, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let reserved = ExtensionType(rawValue: 0)
    public static let applicationID = ExtensionType(rawValue: 1)
    public static let ratchetTree = ExtensionType(rawValue: 2)
    public static let requiredCapabilities = ExtensionType(rawValue: 3)
    public static let externalPub = ExtensionType(rawValue: 4)
    public static let externalSenders = ExtensionType(rawValue: 5)
    /// draft-ietf-mls-extensions (IANA "last_resort_key_package", KeyPackage only): `struct {}`.
    public static let lastResort = ExtensionType(rawValue: 0x000A)
}
