/// `blue.catbird.mls.publishKeyPackage`.
public struct PublishKeyPackageInput: Codable, Sendable, Equatable {
    /// The KeyPackage as an MLSMessage (≤ 64 KiB).
    public var keyPackage: XRPCBytes
    public var cipherSuite: String
    /// RFC 3339 expiry the publisher asks for.
    public var expires: String?
    public var idempotencyKey: String?

    public init(keyPackage: [UInt8], cipherSuite: String, expires: String? = nil, idempotencyKey: String? = nil) {
        self.keyPackage = XRPCBytes(keyPackage)
        self.cipherSuite = cipherSuite
        self.expires = expires
        self.idempotencyKey = idempotencyKey
    }
}

public struct PublishKeyPackageOutput: Codable, Sendable, Equatable {
    public var keyPackageHash: String
    public var expiresAt: String
}

/// `blue.catbird.mls.publishKeyPackages` (≤ 100 per batch).
public struct PublishKeyPackagesInput: Codable, Sendable, Equatable {
    public struct Item: Codable, Sendable, Equatable {
        public var keyPackage: XRPCBytes
        public var cipherSuite: String
        public var expires: String?

        public init(keyPackage: [UInt8], cipherSuite: String, expires: String? = nil) {
            self.keyPackage = XRPCBytes(keyPackage)
            self.cipherSuite = cipherSuite
            self.expires = expires
        }
    }

    public var keyPackages: [Item]

    public init(keyPackages: [Item]) { self.keyPackages = keyPackages }
}

public struct PublishKeyPackagesOutput: Codable, Sendable, Equatable {
    public struct ItemError: Codable, Sendable, Equatable {
        public var index: Int
        public var error: String
        public var message: String?
    }

    public var succeeded: Int
    public var failed: Int
    public var errors: [ItemError]?
}

/// `blue.catbird.mls.getKeyPackages` output.
public struct GetKeyPackagesOutput: Codable, Sendable, Equatable {
    public var keyPackages: [KeyPackageRef]
    public var missing: [String]?
}

/// `blue.catbird.mls.getKeyPackageStats` output.
public struct KeyPackageStats: Codable, Sendable, Equatable {
    public struct SuiteCount: Codable, Sendable, Equatable {
        public var cipherSuite: String?
        public var available: Int?
        public var consumed: Int?
    }

    public var available: Int
    public var consumed: Int
    public var threshold: Int
    public var needsReplenish: Bool
    public var byCipherSuite: [SuiteCount]?
}
