/// RFC 9420 §5.3 and §17.5: `uint16 CredentialType`. Unknown values are kept in capability lists; a
/// `Credential` of an unknown type cannot be decoded because its length is not knowable.
public struct CredentialType: UInt16CodePoint, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let reserved = CredentialType(rawValue: 0)
    public static let basic = CredentialType(rawValue: 1)
    public static let x509 = CredentialType(rawValue: 2)
}
