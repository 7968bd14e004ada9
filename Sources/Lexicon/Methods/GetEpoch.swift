/// `blue.catbird.mls.getEpoch` output.
public struct GetEpochOutput: Codable, Sendable, Equatable {
    public var convoId: String
    public var currentEpoch: Int64

    public init(convoId: String, currentEpoch: Int64) {
        self.convoId = convoId
        self.currentEpoch = currentEpoch
    }
}
