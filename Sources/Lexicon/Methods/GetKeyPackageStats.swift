/// `blue.catbird.mls.getKeyPackageStats` output: the caller's stock of KeyPackages.
public struct GetKeyPackageStatsOutput: Codable, Sendable, Equatable {
    /// Counts for one cipher suite.
    public struct SuiteCount: Codable, Sendable, Equatable {
        public var cipherSuite: String?
        public var available: Int?
        public var consumed: Int?

        public init(cipherSuite: String? = nil, available: Int? = nil, consumed: Int? = nil) {
            self.cipherSuite = cipherSuite
            self.available = available
            self.consumed = consumed
        }
    }

    public var available: Int
    public var consumed: Int
    public var threshold: Int
    public var needsReplenish: Bool
    public var byCipherSuite: [SuiteCount]?
    /// The suites of the caller's last-resort KeyPackages (not counted in `available`).
    public var lastResort: [String]?

    public init(
        available: Int, consumed: Int, threshold: Int, needsReplenish: Bool, byCipherSuite: [SuiteCount]? = nil,
        lastResort: [String]? = nil
    ) {
        self.available = available
        self.consumed = consumed
        self.threshold = threshold
        self.needsReplenish = needsReplenish
        self.byCipherSuite = byCipherSuite
        self.lastResort = lastResort
    }
}
