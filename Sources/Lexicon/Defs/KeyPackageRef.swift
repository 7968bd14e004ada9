import Basics

/// `blue.catbird.mls.defs#keyPackageRef`: a published KeyPackage.
public struct KeyPackageRef: Codable, Sendable, Equatable {
    public var did: String
    /// The KeyPackage as an MLSMessage.
    public var keyPackage: ATBytes
    /// Hex of the RFC 9420 §5.2 KeyPackageRef.
    public var keyPackageHash: String
    public var cipherSuite: String
    public var expiresAt: String

    public init(did: String, keyPackage: [UInt8], keyPackageHash: String, cipherSuite: String, expiresAt: String) {
        self.did = did
        self.keyPackage = ATBytes(keyPackage)
        self.keyPackageHash = keyPackageHash
        self.cipherSuite = cipherSuite
        self.expiresAt = expiresAt
    }
}
