import Basics

/// `blue.catbird.mls.getWelcome` output.
public struct GetWelcomeOutput: Codable, Sendable, Equatable {
    public var convoId: String
    /// The Welcome as an MLSMessage.
    public var welcome: ATBytes

    public init(convoId: String, welcome: [UInt8]) {
        self.convoId = convoId
        self.welcome = ATBytes(welcome)
    }
}
