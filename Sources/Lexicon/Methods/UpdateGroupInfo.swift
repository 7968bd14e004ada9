import Basics

/// `blue.catbird.mls.updateGroupInfo` input.
public struct UpdateGroupInfoInput: Codable, Sendable, Equatable {
    public var convoId: String
    public var groupInfo: ATBytes
    public var epoch: Int64

    public init(convoId: String, groupInfo: [UInt8], epoch: Int64) {
        self.convoId = convoId
        self.groupInfo = ATBytes(groupInfo)
        self.epoch = epoch
    }
}

/// `blue.catbird.mls.updateGroupInfo` output.
public struct UpdateGroupInfoOutput: Codable, Sendable, Equatable {
    public var updated: Bool

    public init(updated: Bool) {
        self.updated = updated
    }
}
