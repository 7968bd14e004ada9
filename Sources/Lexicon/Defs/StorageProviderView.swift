import Basics
import JSON

/// `blue.catbird.mls.defs#storageProvider`: where a user keeps thin-mode ciphertext. The service
/// stores and repeats it; it never contacts the storage.
public struct StorageProviderView: Codable, Sendable, Equatable {
    /// `cloudkit`, `firestore`, `gdrive` or `s3`.
    public var type: String
    /// An https URL without credentials; required for s3.
    public var endpoint: String?
    /// A small flat object of strings.
    public var config: [String: String]?

    public init(type: String, endpoint: String? = nil, config: [String: String]? = nil) {
        self.type = type
        self.endpoint = endpoint
        self.config = config
    }
}

/// `blue.catbird.mls.defs#storageRegistration`: registerStorage's and getStorage's output.
public struct StorageRegistrationView: Codable, Sendable, Equatable {
    public var provider: StorageProviderView
    public var registeredAt: String

    public init(provider: StorageProviderView, registeredAt: String) {
        self.provider = provider
        self.registeredAt = registeredAt
    }
}

/// `blue.catbird.mls.defs#recipientView`: a current member other than the sender, with its storage.
public struct RecipientView: Codable, Sendable, Equatable {
    public var did: String
    public var storage: StorageProviderView?

    public init(did: String, storage: StorageProviderView? = nil) {
        self.did = did
        self.storage = storage
    }
}

// Direct (JSONObjectCodable), as part of sendMessage's thin-mode output.
extension StorageProviderView: JSONObjectCodable {
    public init(json object: JSONObjectReader) throws {
        type = try object.decode(String.self, forKey: CodingKeys.type)
        endpoint = try object.decodeIfPresent(String.self, forKey: CodingKeys.endpoint)
        config = try object.decodeIfPresent([String: String].self, forKey: CodingKeys.config)
    }

    public func encode(json object: inout JSONObjectWriter) {
        object.encode(type, forKey: CodingKeys.type)
        object.encodeIfPresent(endpoint, forKey: CodingKeys.endpoint)
        object.encodeIfPresent(config, forKey: CodingKeys.config)
    }
}

extension RecipientView: JSONObjectCodable {
    public init(json object: JSONObjectReader) throws {
        did = try object.decode(String.self, forKey: CodingKeys.did)
        storage = try object.decodeIfPresent(StorageProviderView.self, forKey: CodingKeys.storage)
    }

    public func encode(json object: inout JSONObjectWriter) {
        object.encode(did, forKey: CodingKeys.did)
        object.encodeIfPresent(storage, forKey: CodingKeys.storage)
    }
}
