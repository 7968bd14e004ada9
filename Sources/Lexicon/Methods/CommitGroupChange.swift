import Basics

/// `blue.catbird.mls.commitGroupChange` input: any valid commit.
public struct CommitGroupChangeInput: Codable, Sendable, Equatable {
    public var convoId: String
    public var commit: ATBytes
    public var groupInfo: ATBytes?
    public var welcomeMessage: ATBytes?
    public var idempotencyKey: String?

    public init(
        convoId: String, commit: [UInt8], groupInfo: [UInt8]? = nil, welcomeMessage: [UInt8]? = nil,
        idempotencyKey: String? = nil
    ) {
        self.convoId = convoId
        self.commit = ATBytes(commit)
        self.groupInfo = groupInfo.map(ATBytes.init)
        self.welcomeMessage = welcomeMessage.map(ATBytes.init)
        self.idempotencyKey = idempotencyKey
    }
}

/// `blue.catbird.mls.commitGroupChange` output.
public struct CommitGroupChangeOutput: Codable, Sendable, Equatable {
    public var newEpoch: Int64

    public init(newEpoch: Int64) {
        self.newEpoch = newEpoch
    }
}
