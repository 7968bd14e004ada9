import DeliveryStore
import Foundation

/// `blue.catbird.mls.defs#convoView`.
struct ConvoView: Codable, Sendable {
    struct Metadata: Codable, Sendable {
        var name: String?
        var description: String?
    }

    var id: String
    var groupId: String
    var creator: String
    var members: [MemberView]
    var epoch: Int64
    var cipherSuite: String
    var createdAt: String
    var lastMessageAt: String?
    var metadata: Metadata?

    init(_ convo: ConvoState, members: [MemberRow]) {
        self.init(convo.header, members: members)
    }

    init(_ convo: ConvoHeader, members: [MemberRow]) {
        id = convo.convoID
        groupId = convo.convoID
        creator = convo.creatorDID
        self.members = members.map(MemberView.init)
        epoch = convo.epoch
        cipherSuite = CipherSuiteName.name(convo.cipherSuite)
        createdAt = Timestamp.rfc3339(convo.createdAt)
        lastMessageAt = convo.lastMessageAt.map(Timestamp.rfc3339)
        metadata = convo.name == nil && convo.description == nil ? nil : Metadata(name: convo.name, description: convo.description)
    }
}

/// `blue.catbird.mls.defs#memberView`.
struct MemberView: Codable, Sendable {
    var did: String
    var joinedAt: String
    var leafIndex: UInt32?
    var isAdmin: Bool
    var credential: ATBytes?

    init(_ row: MemberRow) {
        did = row.did
        joinedAt = Timestamp.rfc3339(row.joinedAt)
        leafIndex = row.leafIndex
        isAdmin = row.isAdmin
        credential = ATBytes(row.credential)
    }
}
