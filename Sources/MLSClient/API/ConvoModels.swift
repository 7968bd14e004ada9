/// `{did, hash}`: which of a member's key packages a commit consumed (hash = hex KeyPackageRef).
public struct KeyPackageHashEntry: Codable, Sendable, Equatable {
    public var did: String
    public var hash: String

    public init(did: String, hash: String) {
        self.did = did
        self.hash = hash
    }
}

/// `blue.catbird.mls.createConvo` input; the output is a `ConvoView`.
public struct CreateConvoInput: Codable, Sendable, Equatable {
    /// Hex of the MLS group_id.
    public var groupId: String
    public var cipherSuite: String
    public var idempotencyKey: String?
    public var groupInfo: XRPCBytes
    public var ratchetTree: XRPCBytes?
    public var commit: XRPCBytes?
    public var welcomeMessage: XRPCBytes?
    public var keyPackageHashes: [KeyPackageHashEntry]?
    public var metadata: ConvoMetadata?

    public init(groupId: String, cipherSuite: String, groupInfo: [UInt8], ratchetTree: [UInt8]? = nil,
                commit: [UInt8]? = nil, welcomeMessage: [UInt8]? = nil, keyPackageHashes: [KeyPackageHashEntry]? = nil,
                metadata: ConvoMetadata? = nil, idempotencyKey: String? = nil) {
        self.groupId = groupId
        self.cipherSuite = cipherSuite
        self.groupInfo = XRPCBytes(groupInfo)
        self.ratchetTree = ratchetTree.map(XRPCBytes.init)
        self.commit = commit.map(XRPCBytes.init)
        self.welcomeMessage = welcomeMessage.map(XRPCBytes.init)
        self.keyPackageHashes = keyPackageHashes
        self.metadata = metadata
        self.idempotencyKey = idempotencyKey
    }
}

/// `blue.catbird.mls.getConvos` output.
public struct GetConvosOutput: Codable, Sendable, Equatable {
    public var conversations: [ConvoView]
    public var cursor: String?
}

/// `blue.catbird.mls.addMembers`.
public struct AddMembersInput: Codable, Sendable, Equatable {
    public var convoId: String
    public var commit: XRPCBytes
    public var welcomeMessage: XRPCBytes
    public var groupInfo: XRPCBytes?
    public var keyPackageHashes: [KeyPackageHashEntry]?
    public var didList: [String]?
    public var idempotencyKey: String?

    public init(convoId: String, commit: [UInt8], welcomeMessage: [UInt8], groupInfo: [UInt8]? = nil,
                keyPackageHashes: [KeyPackageHashEntry]? = nil, didList: [String]? = nil, idempotencyKey: String? = nil) {
        self.convoId = convoId
        self.commit = XRPCBytes(commit)
        self.welcomeMessage = XRPCBytes(welcomeMessage)
        self.groupInfo = groupInfo.map(XRPCBytes.init)
        self.keyPackageHashes = keyPackageHashes
        self.didList = didList
        self.idempotencyKey = idempotencyKey
    }
}

public struct AddMembersOutput: Codable, Sendable, Equatable {
    public var success: Bool
    public var newEpoch: Int64
    public var addedMembers: [String]
}

/// `blue.catbird.mls.removeMember`; `idempotencyKey` is required by the lexicon (the client fills one in).
public struct RemoveMemberInput: Codable, Sendable, Equatable {
    public var convoId: String
    public var targetDid: String
    public var commit: XRPCBytes
    public var groupInfo: XRPCBytes?
    public var idempotencyKey: String?

    public init(convoId: String, targetDid: String, commit: [UInt8], groupInfo: [UInt8]? = nil, idempotencyKey: String? = nil) {
        self.convoId = convoId
        self.targetDid = targetDid
        self.commit = XRPCBytes(commit)
        self.groupInfo = groupInfo.map(XRPCBytes.init)
        self.idempotencyKey = idempotencyKey
    }
}

public struct RemoveMemberOutput: Codable, Sendable, Equatable {
    public var ok: Bool
    public var newEpoch: Int64
}

/// `blue.catbird.mls.commitGroupChange`.
public struct CommitGroupChangeInput: Codable, Sendable, Equatable {
    public var convoId: String
    public var commit: XRPCBytes
    public var groupInfo: XRPCBytes?
    public var welcomeMessage: XRPCBytes?
    public var idempotencyKey: String?

    public init(convoId: String, commit: [UInt8], groupInfo: [UInt8]? = nil, welcomeMessage: [UInt8]? = nil,
                idempotencyKey: String? = nil) {
        self.convoId = convoId
        self.commit = XRPCBytes(commit)
        self.groupInfo = groupInfo.map(XRPCBytes.init)
        self.welcomeMessage = welcomeMessage.map(XRPCBytes.init)
        self.idempotencyKey = idempotencyKey
    }
}

public struct CommitGroupChangeOutput: Codable, Sendable, Equatable {
    public var newEpoch: Int64
}

/// `blue.catbird.mls.leaveConvo`.
public struct LeaveConvoInput: Codable, Sendable, Equatable {
    public var convoId: String
    /// A PublicMessage self-Remove proposal.
    public var proposal: XRPCBytes?

    public init(convoId: String, proposal: [UInt8]? = nil) {
        self.convoId = convoId
        self.proposal = proposal.map(XRPCBytes.init)
    }
}

public struct LeaveConvoOutput: Codable, Sendable, Equatable {
    public var success: Bool
    public var pendingRemoval: Bool
}

/// `blue.catbird.mls.processExternalCommit`.
public struct ProcessExternalCommitInput: Codable, Sendable, Equatable {
    public var convoId: String
    public var externalCommit: XRPCBytes
    public var groupInfo: XRPCBytes?
    public var idempotencyKey: String?

    public init(convoId: String, externalCommit: [UInt8], groupInfo: [UInt8]? = nil, idempotencyKey: String? = nil) {
        self.convoId = convoId
        self.externalCommit = XRPCBytes(externalCommit)
        self.groupInfo = groupInfo.map(XRPCBytes.init)
        self.idempotencyKey = idempotencyKey
    }
}

public struct ProcessExternalCommitOutput: Codable, Sendable, Equatable {
    public var epoch: Int64
    public var rejoinedAt: String
}

/// `blue.catbird.mls.getEpoch` output.
public struct GetEpochOutput: Codable, Sendable, Equatable {
    public var convoId: String
    public var currentEpoch: Int64
}

/// `blue.catbird.mls.getGroupInfo` output.
public struct GetGroupInfoOutput: Codable, Sendable, Equatable {
    public var groupInfo: XRPCBytes
    public var epoch: Int64
    public var expiresAt: String?
}

/// `blue.catbird.mls.updateGroupInfo`.
public struct UpdateGroupInfoInput: Codable, Sendable, Equatable {
    public var convoId: String
    public var groupInfo: XRPCBytes
    public var epoch: Int64

    public init(convoId: String, groupInfo: [UInt8], epoch: Int64) {
        self.convoId = convoId
        self.groupInfo = XRPCBytes(groupInfo)
        self.epoch = epoch
    }
}

public struct UpdateGroupInfoOutput: Codable, Sendable, Equatable {
    public var updated: Bool
}

/// `blue.catbird.mls.getCommits` output.
public struct GetCommitsOutput: Codable, Sendable, Equatable {
    public struct Commit: Codable, Sendable, Equatable {
        public var epoch: Int64
        public var sender: String
        public var commitData: XRPCBytes
        public var createdAt: String
    }

    public var convoId: String
    public var commits: [Commit]
}
