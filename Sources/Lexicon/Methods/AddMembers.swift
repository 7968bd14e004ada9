import Basics

/// `blue.catbird.mls.addMembers` input.
public struct AddMembersInput: Codable, Sendable, Equatable {
    public var convoId: String
    /// PublicMessage with Add proposals.
    public var commit: ATBytes
    public var welcomeMessage: ATBytes
    /// GroupInfo of the new epoch.
    public var groupInfo: ATBytes?
    public var keyPackageHashes: [KeyPackageHash]?
    public var didList: [String]?
    public var idempotencyKey: String?

    public init(
        convoId: String, commit: [UInt8], welcomeMessage: [UInt8], groupInfo: [UInt8]? = nil,
        keyPackageHashes: [KeyPackageHash]? = nil, didList: [String]? = nil, idempotencyKey: String? = nil
    ) {
        self.convoId = convoId
        self.commit = ATBytes(commit)
        self.welcomeMessage = ATBytes(welcomeMessage)
        self.groupInfo = groupInfo.map(ATBytes.init)
        self.keyPackageHashes = keyPackageHashes
        self.didList = didList
        self.idempotencyKey = idempotencyKey
    }
}

/// `blue.catbird.mls.addMembers` output.
public struct AddMembersOutput: Codable, Sendable, Equatable {
    public var success: Bool
    public var newEpoch: Int64
    public var addedMembers: [String]

    public init(success: Bool, newEpoch: Int64, addedMembers: [String]) {
        self.success = success
        self.newEpoch = newEpoch
        self.addedMembers = addedMembers
    }
}
