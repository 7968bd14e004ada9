import Basics

/// `blue.catbird.mls.publishKeyPackage` input.
public struct PublishKeyPackageInput: Codable, Sendable, Equatable {
    /// The KeyPackage as an MLSMessage (≤ 64 KiB).
    public var keyPackage: ATBytes
    public var cipherSuite: String
    /// RFC 3339 expiry the publisher asks for.
    public var expires: String?
    public var idempotencyKey: String?

    public init(keyPackage: [UInt8], cipherSuite: String, expires: String? = nil, idempotencyKey: String? = nil) {
        self.keyPackage = ATBytes(keyPackage)
        self.cipherSuite = cipherSuite
        self.expires = expires
        self.idempotencyKey = idempotencyKey
    }
}

/// `blue.catbird.mls.publishKeyPackage` output.
public struct PublishKeyPackageOutput: Codable, Sendable, Equatable {
    public var keyPackageHash: String
    public var expiresAt: String

    public init(keyPackageHash: String, expiresAt: String) {
        self.keyPackageHash = keyPackageHash
        self.expiresAt = expiresAt
    }
}
