import Basics
import JSON

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

// Read and written directly (JSONObjectCodable): getConvos answers a page of them, each with its members.
extension ConvoView: JSONObjectCodable {
    public init(json object: JSONObjectReader) throws {
        id = try object.decode(String.self, forKey: CodingKeys.id)
        groupId = try object.decode(String.self, forKey: CodingKeys.groupId)
        creator = try object.decode(String.self, forKey: CodingKeys.creator)
        members = try object.decode([MemberView].self, forKey: CodingKeys.members)
        epoch = try object.decode(Int64.self, forKey: CodingKeys.epoch)
        cipherSuite = try object.decode(String.self, forKey: CodingKeys.cipherSuite)
        createdAt = try object.decode(String.self, forKey: CodingKeys.createdAt)
        lastMessageAt = try object.decodeIfPresent(String.self, forKey: CodingKeys.lastMessageAt)
        metadata = try object.decodeIfPresent(ConvoMetadata.self, forKey: CodingKeys.metadata)
        handshake = try object.decodeIfPresent(String.self, forKey: CodingKeys.handshake)
    }

    public func encode(json object: inout JSONObjectWriter) {
        object.encode(id, forKey: CodingKeys.id)
        object.encode(groupId, forKey: CodingKeys.groupId)
        object.encode(creator, forKey: CodingKeys.creator)
        object.encode(members, forKey: CodingKeys.members)
        object.encode(epoch, forKey: CodingKeys.epoch)
        object.encode(cipherSuite, forKey: CodingKeys.cipherSuite)
        object.encode(createdAt, forKey: CodingKeys.createdAt)
        object.encodeIfPresent(lastMessageAt, forKey: CodingKeys.lastMessageAt)
        object.encodeIfPresent(metadata, forKey: CodingKeys.metadata)
        object.encodeIfPresent(handshake, forKey: CodingKeys.handshake)
    }
}

extension ConvoMetadata: JSONObjectCodable {
    public init(json object: JSONObjectReader) throws {
        name = try object.decodeIfPresent(String.self, forKey: CodingKeys.name)
        description = try object.decodeIfPresent(String.self, forKey: CodingKeys.description)
    }

    public func encode(json object: inout JSONObjectWriter) {
        object.encodeIfPresent(name, forKey: CodingKeys.name)
        object.encodeIfPresent(description, forKey: CodingKeys.description)
    }
}

extension MemberView: JSONObjectCodable {
    public init(json object: JSONObjectReader) throws {
        did = try object.decode(String.self, forKey: CodingKeys.did)
        joinedAt = try object.decode(String.self, forKey: CodingKeys.joinedAt)
        leafIndex = try object.decodeIfPresent(UInt32.self, forKey: CodingKeys.leafIndex)
        isAdmin = try object.decode(Bool.self, forKey: CodingKeys.isAdmin)
        credential = try object.decodeIfPresent(ATBytes.self, forKey: CodingKeys.credential)
    }

    public func encode(json object: inout JSONObjectWriter) {
        object.encode(did, forKey: CodingKeys.did)
        object.encode(joinedAt, forKey: CodingKeys.joinedAt)
        object.encodeIfPresent(leafIndex, forKey: CodingKeys.leafIndex)
        object.encode(isAdmin, forKey: CodingKeys.isAdmin)
        object.encodeIfPresent(credential, forKey: CodingKeys.credential)
    }
}
