import Basics

/// `blue.catbird.mls.publishKeyPackage` input.
public struct PublishKeyPackageInput: Codable, Sendable, Equatable {
    /// The KeyPackage as an MLSMessage (≤ 64 KiB).
    public var keyPackage: ATBytes
    public var cipherSuite: String
    /// RFC 3339 expiry the publisher asks for.
    public var expires: String?
    /// RFC 9750 §5.1: never consumed, handed out only when the publisher has no other package; it
    /// replaces the publisher's previous last-resort package of its suite.
    public var lastResort: Bool?
    public var idempotencyKey: String?

    public init(keyPackage: [UInt8], cipherSuite: String, expires: String? = nil, lastResort: Bool? = nil,
                idempotencyKey: String? = nil) {
        self.keyPackage = ATBytes(keyPackage)
        self.cipherSuite = cipherSuite
        self.expires = expires
        self.lastResort = lastResort
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
