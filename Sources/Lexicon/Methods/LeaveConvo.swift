import Basics

/// `blue.catbird.mls.leaveConvo` input.
public struct LeaveConvoInput: Codable, Sendable, Equatable {
    public var convoId: String
    /// A PublicMessage self-Remove proposal.
    public var proposal: ATBytes?

    public init(convoId: String, proposal: [UInt8]? = nil) {
        self.convoId = convoId
        self.proposal = proposal.map(ATBytes.init)
    }
}

/// `blue.catbird.mls.leaveConvo` output.
public struct LeaveConvoOutput: Codable, Sendable, Equatable {
    public var success: Bool
    public var pendingRemoval: Bool

    public init(success: Bool, pendingRemoval: Bool) {
        self.success = success
        self.pendingRemoval = pendingRemoval
    }
}
