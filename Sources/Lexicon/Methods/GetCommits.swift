import Basics

/// `blue.catbird.mls.getCommits` output.
public struct GetCommitsOutput: Codable, Sendable, Equatable {
    /// One epoch's commit.
    public struct Commit: Codable, Sendable, Equatable {
        public var epoch: Int64
        public var sender: String
        public var commitData: ATBytes
        public var createdAt: String

        public init(epoch: Int64, sender: String, commitData: [UInt8], createdAt: String) {
            self.epoch = epoch
            self.sender = sender
            self.commitData = ATBytes(commitData)
            self.createdAt = createdAt
        }
    }

    public var convoId: String
    public var commits: [Commit]

    public init(convoId: String, commits: [Commit]) {
        self.convoId = convoId
        self.commits = commits
    }
}
