import Foundation

/// Where a user keeps thin-mode ciphertext (API.md, "Thin delivery-service mode").
public enum StorageProviderType: String, Sendable, Codable, CaseIterable {
    case cloudkit
    case firestore
    case gdrive
    case s3
}

/// A user's storage registration: the provider, an optional endpoint and a flat map of settings.
/// The service stores and hands out these values; it never contacts the storage.
public struct StorageProvider: Sendable, Equatable {
    public var type: StorageProviderType
    public var endpoint: String?
    public var config: [String: String]

    public init(type: StorageProviderType, endpoint: String? = nil, config: [String: String] = [:]) {
        self.type = type
        self.endpoint = endpoint
        self.config = config
    }
}

/// A stored registration, one per DID.
public struct StorageRegistration: Sendable, Equatable {
    public var did: String
    public var provider: StorageProvider
    public var registeredAt: Date
}

/// A current member other than a message's sender, with its storage if it registered one.
public struct MessageRecipient: Sendable, Equatable {
    public var did: String
    public var storage: StorageProvider?

    public init(did: String, storage: StorageProvider?) {
        self.did = did
        self.storage = storage
    }
}
