import Basics
import Foundation

/// A conversation's row: the group's public state and its metadata.
public struct ConvoState: Sendable, Equatable {
    /// Lowercase hex of `groupID`.
    public var convoID: String
    public var groupID: [UInt8]
    public var cipherSuite: UInt16
    public var epoch: Int64
    /// The serialized public group state (tree, group context, interim transcript hash); opaque here.
    public var publicState: [UInt8]
    /// The latest GroupInfo stored and the epoch it is for, which may be older than `epoch`.
    public var groupInfo: [UInt8]?
    public var groupInfoEpoch: Int64?
    public var creatorDID: String
    public var name: String?
    public var description: String?
    public var createdAt: Date
    public var lastMessageAt: Date?
    /// The seq of the newest message (0 when there is none).
    public var lastSeq: Int64
    /// The event_seq of the newest event.
    public var lastEventSeq: Int64
    /// The epoch a ReInit commit created, after which the conversation takes no change; nil while live.
    public var frozenEpoch: Int64?
    /// Whether handshake messages may be PrivateMessages.
    public var handshake: ConvoHandshake

    /// The GroupInfo only if it is for the current epoch (usable for an external join).
    public var currentGroupInfo: [UInt8]? { groupInfoEpoch == epoch ? groupInfo : nil }
}

/// A conversation with its current members, as `createConvo` returns it.
public struct ConvoSummary: Sendable, Equatable {
    public var convo: ConvoState
    public var members: [MemberRow]
}

/// What a conversation's listing shows: its row without the group state.
public struct ConvoHeader: Sendable, Equatable {
    public var convoID: String
    public var cipherSuite: UInt16
    public var epoch: Int64
    public var creatorDID: String
    public var name: String?
    public var description: String?
    public var createdAt: Date
    public var lastMessageAt: Date?
    public var lastSeq: Int64
    public var handshake: ConvoHandshake
}

extension ConvoState {
    public var header: ConvoHeader {
        ConvoHeader(convoID: convoID, cipherSuite: cipherSuite, epoch: epoch, creatorDID: creatorDID, name: name,
                    description: description, createdAt: createdAt, lastMessageAt: lastMessageAt, lastSeq: lastSeq,
                    handshake: handshake)
    }
}

/// A conversation with its current members, as listed by `listConvos`.
public struct ConvoListing: Sendable, Equatable {
    public var convo: ConvoHeader
    public var members: [MemberRow]
}

/// One page of `listConvos`; `cursor` is nil on the last page.
public struct ConvoPage: Sendable, Equatable {
    public var convos: [ConvoListing]
    public var cursor: String?
}

/// Everything needed to create a conversation, already validated by the caller (GroupInfo and
/// tree valid, commit valid, key packages parsed).
public struct ConvoCreation: Sendable {
    public var groupID: [UInt8]
    public var cipherSuite: UInt16
    /// The group's epoch after the initial commit (if any).
    public var epoch: Int64
    public var publicState: [UInt8]
    /// GroupInfo for `epoch`.
    public var groupInfo: [UInt8]?
    public var creatorDID: DID
    public var name: String?
    public var description: String?
    /// Every occupied leaf of the tree at `epoch`; the creator's leaves are admins.
    public var members: [MemberLeaf]
    /// The packages the initial commit added; each must exist, unconsumed, owned by its DID.
    public var consumedKeyPackages: [KeyPackageUse]
    public var welcomes: [WelcomeDelivery]
    /// The commit that added the initial members (made in `epoch - 1`), stored as commit and message.
    public var initialCommit: [UInt8]?
    /// Message id of the initial commit's message row; defaults to `commit-<epoch - 1>`.
    public var initialCommitMsgID: String?
    public var handshake: ConvoHandshake

    public init(
        groupID: [UInt8], cipherSuite: UInt16, epoch: Int64, publicState: [UInt8], groupInfo: [UInt8]?,
        creatorDID: DID, name: String? = nil, description: String? = nil, members: [MemberLeaf],
        consumedKeyPackages: [KeyPackageUse] = [], welcomes: [WelcomeDelivery] = [], initialCommit: [UInt8]? = nil,
        handshake: ConvoHandshake = .public
    ) {
        self.groupID = groupID
        self.cipherSuite = cipherSuite
        self.epoch = epoch
        self.publicState = publicState
        self.groupInfo = groupInfo
        self.creatorDID = creatorDID
        self.name = name
        self.description = description
        self.members = members
        self.consumedKeyPackages = consumedKeyPackages
        self.welcomes = welcomes
        self.initialCommit = initialCommit
        self.handshake = handshake
    }

    public var convoID: String { DeliveryStore.convoID(forGroupID: groupID) }
}
