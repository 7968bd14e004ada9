import Basics

/// `blue.catbird.mls.processExternalCommit` input.
public struct ProcessExternalCommitInput: Codable, Sendable, Equatable {
    public var convoId: String
    /// PublicMessage, sender new_member_commit.
    public var externalCommit: ATBytes
    public var groupInfo: ATBytes?
    public var idempotencyKey: String?

    public init(convoId: String, externalCommit: [UInt8], groupInfo: [UInt8]? = nil, idempotencyKey: String? = nil) {
        self.convoId = convoId
        self.externalCommit = ATBytes(externalCommit)
        self.groupInfo = groupInfo.map(ATBytes.init)
        self.idempotencyKey = idempotencyKey
    }
}

/// `blue.catbird.mls.processExternalCommit` output.
public struct ProcessExternalCommitOutput: Codable, Sendable, Equatable {
    public var epoch: Int64
    public var rejoinedAt: String

    public init(epoch: Int64, rejoinedAt: String) {
        self.epoch = epoch
        self.rejoinedAt = rejoinedAt
    }
}
