import Basics

/// `blue.catbird.mls.createConvo` input; the output is a `ConvoView`.
public struct CreateConvoInput: Codable, Sendable, Equatable {
    /// Hex of the MLS group_id.
    public var groupId: String
    public var cipherSuite: String
    public var idempotencyKey: String?
    /// MLSMessage GroupInfo of the group's current epoch.
    public var groupInfo: ATBytes
    public var ratchetTree: ATBytes?
    /// The commit that added the initial members: a PublicMessage (a sealed conversation also takes a
    /// PrivateMessage, whose header alone the service can check).
    public var commit: ATBytes?
    public var welcomeMessage: ATBytes?
    public var keyPackageHashes: [KeyPackageHash]?
    public var metadata: ConvoMetadata?
    /// `public` (the default: handshake messages must be PublicMessages) or `sealed` (PrivateMessages
    /// accepted too, each commit checked through its GroupInfo; docs/sealed-commits.md).
    public var handshake: String?

    public init(
        groupId: String, cipherSuite: String, idempotencyKey: String? = nil, groupInfo: [UInt8],
        ratchetTree: [UInt8]? = nil, commit: [UInt8]? = nil, welcomeMessage: [UInt8]? = nil,
        keyPackageHashes: [KeyPackageHash]? = nil, metadata: ConvoMetadata? = nil, handshake: String? = nil
    ) {
        self.groupId = groupId
        self.cipherSuite = cipherSuite
        self.idempotencyKey = idempotencyKey
        self.groupInfo = ATBytes(groupInfo)
        self.ratchetTree = ratchetTree.map(ATBytes.init)
        self.commit = commit.map(ATBytes.init)
        self.welcomeMessage = welcomeMessage.map(ATBytes.init)
        self.keyPackageHashes = keyPackageHashes
        self.metadata = metadata
        self.handshake = handshake
    }
}

/// `{did, hash}`: which of a member's KeyPackages a commit consumed (hash: hex KeyPackageRef).
public struct KeyPackageHash: Codable, Sendable, Equatable {
    public var did: String
    public var hash: String

    public init(did: String, hash: String) {
        self.did = did
        self.hash = hash
    }
}
