import Basics

/// `blue.catbird.mls.removeMember` input.
public struct RemoveMemberInput: Codable, Sendable, Equatable {
    public var convoId: String
    public var targetDid: String
    /// PublicMessage with the Remove.
    public var commit: ATBytes
    public var groupInfo: ATBytes?
    public var idempotencyKey: String?

    public init(
        convoId: String, targetDid: String, commit: [UInt8], groupInfo: [UInt8]? = nil, idempotencyKey: String? = nil
    ) {
        self.convoId = convoId
        self.targetDid = targetDid
        self.commit = ATBytes(commit)
        self.groupInfo = groupInfo.map(ATBytes.init)
        self.idempotencyKey = idempotencyKey
    }
}

/// `blue.catbird.mls.removeMember` output.
public struct RemoveMemberOutput: Codable, Sendable, Equatable {
    public var ok: Bool
    public var newEpoch: Int64

    public init(ok: Bool, newEpoch: Int64) {
        self.ok = ok
        self.newEpoch = newEpoch
    }
}
