import Basics

/// `blue.catbird.mls.getGroupInfo` output.
public struct GetGroupInfoOutput: Codable, Sendable, Equatable {
    public var groupInfo: ATBytes
    public var epoch: Int64
    public var expiresAt: String?

    public init(groupInfo: [UInt8], epoch: Int64, expiresAt: String? = nil) {
        self.groupInfo = ATBytes(groupInfo)
        self.epoch = epoch
        self.expiresAt = expiresAt
    }
}
