/// `blue.catbird.mls.getWelcome` output.
public struct GetWelcomeOutput: Codable, Sendable, Equatable {
    public var convoId: String
    /// The Welcome as an MLSMessage.
    public var welcome: XRPCBytes
}

/// `blue.catbird.mls.confirmWelcome`.
public struct ConfirmWelcomeInput: Codable, Sendable, Equatable {
    public var convoId: String
    public var success: Bool
    public var errorDetails: String?

    public init(convoId: String, success: Bool, errorDetails: String? = nil) {
        self.convoId = convoId
        self.success = success
        self.errorDetails = errorDetails
    }
}

public struct ConfirmWelcomeOutput: Codable, Sendable, Equatable {
    public var confirmed: Bool
}
