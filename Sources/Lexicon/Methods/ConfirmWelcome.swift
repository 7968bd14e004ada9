/// `blue.catbird.mls.confirmWelcome` input.
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

/// `blue.catbird.mls.confirmWelcome` output.
public struct ConfirmWelcomeOutput: Codable, Sendable, Equatable {
    public var confirmed: Bool

    public init(confirmed: Bool) {
        self.confirmed = confirmed
    }
}
