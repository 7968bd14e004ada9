/// `blue.catbird.mls.defs#convoMetadata`.
public struct ConvoMetadata: Codable, Sendable, Equatable {
    public var name: String?
    public var description: String?

    public init(name: String? = nil, description: String? = nil) {
        self.name = name
        self.description = description
    }
}

/// `blue.catbird.mls.defs#convoView`.
public struct ConvoView: Codable, Sendable, Equatable {
    public var id: String
    public var groupId: String
    public var creator: String
    public var members: [MemberView]
    public var epoch: Int64
    public var cipherSuite: String
    public var createdAt: String
    public var lastMessageAt: String?
    public var metadata: ConvoMetadata?

    public init(id: String, groupId: String, creator: String, members: [MemberView], epoch: Int64,
                cipherSuite: String, createdAt: String, lastMessageAt: String? = nil, metadata: ConvoMetadata? = nil) {
        self.id = id
        self.groupId = groupId
        self.creator = creator
        self.members = members
        self.epoch = epoch
        self.cipherSuite = cipherSuite
        self.createdAt = createdAt
        self.lastMessageAt = lastMessageAt
        self.metadata = metadata
    }
}

/// `blue.catbird.mls.defs#memberView`.
public struct MemberView: Codable, Sendable, Equatable {
    public var did: String
    public var joinedAt: String
    public var leafIndex: UInt32?
    public var isAdmin: Bool
    public var credential: XRPCBytes?

    public init(did: String, joinedAt: String, leafIndex: UInt32? = nil, isAdmin: Bool, credential: XRPCBytes? = nil) {
        self.did = did
        self.joinedAt = joinedAt
        self.leafIndex = leafIndex
        self.isAdmin = isAdmin
        self.credential = credential
    }
}

/// `blue.catbird.mls.defs#messageView`. `ciphertext` is absent for messages stored in thin mode
/// (API.md, "Thin delivery-service mode"), where the sender's own storage holds it.
public struct MessageView: Codable, Sendable, Equatable {
    public var id: String
    public var convoId: String
    public var sender: String
    public var ciphertext: XRPCBytes?
    public var epoch: Int64
    public var seq: Int64
    public var createdAt: String
    /// `app` or `commit`.
    public var messageType: String

    public init(id: String, convoId: String, sender: String, ciphertext: XRPCBytes?, epoch: Int64, seq: Int64,
                createdAt: String, messageType: String) {
        self.id = id
        self.convoId = convoId
        self.sender = sender
        self.ciphertext = ciphertext
        self.epoch = epoch
        self.seq = seq
        self.createdAt = createdAt
        self.messageType = messageType
    }

    public var isCommit: Bool { messageType == "commit" }
}

/// `blue.catbird.mls.defs#keyPackageRef`.
public struct KeyPackageRef: Codable, Sendable, Equatable {
    public var did: String
    public var keyPackage: XRPCBytes
    /// Hex of the RFC 9420 KeyPackageRef.
    public var keyPackageHash: String
    public var cipherSuite: String
    public var expiresAt: String

    public init(did: String, keyPackage: XRPCBytes, keyPackageHash: String, cipherSuite: String, expiresAt: String) {
        self.did = did
        self.keyPackage = keyPackage
        self.keyPackageHash = keyPackageHash
        self.cipherSuite = cipherSuite
        self.expiresAt = expiresAt
    }
}
