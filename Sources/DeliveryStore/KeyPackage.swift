import Basics
import Foundation

/// A KeyPackage the caller validated (signatures, lifetime, suite, identity = owner), to store.
public struct NewKeyPackage: Sendable, Equatable {
    public var ownerDID: DID
    public var cipherSuite: UInt16
    /// The MLSMessage bytes as published.
    public var keyPackage: [UInt8]
    /// RFC 9420 §5.2 KeyPackageRef.
    public var ref: [UInt8]
    public var credentialIdentity: String
    /// When the service drops it (never past the package's own not_after).
    public var expiresAt: Date
    /// RFC 9750 §5.1: never consumed, handed out only when the owner has no other package; one
    /// per owner and suite (a new one replaces the old).
    public var lastResort: Bool

    public init(ownerDID: DID, cipherSuite: UInt16, keyPackage: [UInt8], ref: [UInt8], credentialIdentity: String,
                expiresAt: Date, lastResort: Bool = false) {
        self.ownerDID = ownerDID
        self.cipherSuite = cipherSuite
        self.keyPackage = keyPackage
        self.ref = ref
        self.credentialIdentity = credentialIdentity
        self.expiresAt = expiresAt
        self.lastResort = lastResort
    }
}

/// The result of publishing one package.
public struct PublishedKeyPackage: Sendable, Equatable {
    public var ref: [UInt8]
    public var expiresAt: Date
    /// True when the same owner had already published it (a retry): nothing new was stored.
    public var duplicate: Bool
}

/// A stored package.
public struct StoredKeyPackage: Sendable, Equatable {
    public var ref: [UInt8]
    public var ownerDID: String
    /// Never consumed (`NewKeyPackage.lastResort`).
    public var lastResort: Bool
    public var cipherSuite: UInt16
    public var keyPackage: [UInt8]
    public var credentialIdentity: String
    public var expiresAt: Date
    public var createdAt: Date
    public var consumedAt: Date?
    public var consumedInConvo: String?
}

/// The answer to getKeyPackages: one package per DID that has one, in request order, and the
/// DIDs that have none.
public struct KeyPackageSelection: Sendable, Equatable {
    public var packages: [StoredKeyPackage]
    public var missing: [String]

    public init(packages: [StoredKeyPackage], missing: [String]) {
        self.packages = packages
        self.missing = missing
    }
}

/// An owner's counts: available = one-time packages unconsumed and unexpired; consumed = consumed,
/// not yet deleted.
public struct KeyPackageStats: Sendable, Equatable {
    public var available: Int
    public var consumed: Int
    /// Available packages per cipher suite.
    public var byCipherSuite: [UInt16: Int]
    /// The suites of the owner's unexpired last-resort packages (not counted as available).
    public var lastResortSuites: Set<UInt16>

    public init(available: Int, consumed: Int, byCipherSuite: [UInt16: Int], lastResortSuites: Set<UInt16> = []) {
        self.available = available
        self.consumed = consumed
        self.byCipherSuite = byCipherSuite
        self.lastResortSuites = lastResortSuites
    }
}
