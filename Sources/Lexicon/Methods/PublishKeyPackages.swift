import Basics

/// `blue.catbird.mls.publishKeyPackages` input (≤ 100 per batch).
public struct PublishKeyPackagesInput: Codable, Sendable, Equatable {
    /// One KeyPackage of the batch.
    public struct Item: Codable, Sendable, Equatable {
        public var keyPackage: ATBytes
        public var cipherSuite: String
        public var expires: String?
        /// As publishKeyPackage's `lastResort`.
        public var lastResort: Bool?

        public init(keyPackage: [UInt8], cipherSuite: String, expires: String? = nil, lastResort: Bool? = nil) {
            self.keyPackage = ATBytes(keyPackage)
            self.cipherSuite = cipherSuite
            self.expires = expires
            self.lastResort = lastResort
        }
    }

    public var keyPackages: [Item]

    public init(keyPackages: [Item]) {
        self.keyPackages = keyPackages
    }
}

/// `blue.catbird.mls.publishKeyPackages` output.
public struct PublishKeyPackagesOutput: Codable, Sendable, Equatable {
    /// Why the package at `index` was refused: an XRPC error name and message.
    public struct ItemError: Codable, Sendable, Equatable {
        public var index: Int
        public var error: String
        public var message: String?

        public init(index: Int, error: String, message: String? = nil) {
            self.index = index
            self.error = error
            self.message = message
        }
    }

    public var succeeded: Int
    public var failed: Int
    public var errors: [ItemError]?

    public init(succeeded: Int, failed: Int, errors: [ItemError]? = nil) {
        self.succeeded = succeeded
        self.failed = failed
        self.errors = errors
    }
}
