import Basics

/// `blue.catbird.mls.defs#convoView`: a conversation and its current members.
public struct ConvoView: Codable, Sendable, Equatable {
    /// The conversation id: the hex of the MLS group_id.
    public var id: String
    public var groupId: String
    /// DID.
    public var creator: String
    public var members: [MemberView]
    public var epoch: Int64
    /// RFC 9420 §17.1 name.
    public var cipherSuite: String
    /// RFC 3339.
    public var createdAt: String
    public var lastMessageAt: String?
    public var metadata: ConvoMetadata?
    /// The conversation's handshake policy: `public` or `sealed` (createConvo).
    public var handshake: String?

    public init(
        id: String, groupId: String, creator: String, members: [MemberView], epoch: Int64, cipherSuite: String,
        createdAt: String, lastMessageAt: String? = nil, metadata: ConvoMetadata? = nil, handshake: String? = nil
    ) {
        self.id = id
        self.groupId = groupId
        self.creator = creator
        self.members = members
        self.epoch = epoch
        self.cipherSuite = cipherSuite
        self.createdAt = createdAt
        self.lastMessageAt = lastMessageAt
        self.metadata = metadata
        self.handshake = handshake
    }
}

/// `blue.catbird.mls.defs#convoMetadata`: name ≤ 128, description ≤ 512 characters.
public struct ConvoMetadata: Codable, Sendable, Equatable {
    public var name: String?
    public var description: String?

    public init(name: String? = nil, description: String? = nil) {
        self.name = name
        self.description = description
    }
}

/// `blue.catbird.mls.defs#memberView`: one leaf of a member.
public struct MemberView: Codable, Sendable, Equatable {
    public var did: String
    public var joinedAt: String
    public var leafIndex: UInt32?
    public var isAdmin: Bool
    /// The leaf's MLS Credential encoding.
    public var credential: ATBytes?

    public init(did: String, joinedAt: String, leafIndex: UInt32? = nil, isAdmin: Bool, credential: [UInt8]? = nil) {
        self.did = did
        self.joinedAt = joinedAt
        self.leafIndex = leafIndex
        self.isAdmin = isAdmin
        self.credential = credential.map(ATBytes.init)
    }
}
