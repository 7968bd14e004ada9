import Lexicon

/// `blue.catbird.mls.getKeyPackageStats`: the caller's stock of KeyPackages.
enum GetKeyPackageStats {
    typealias SuiteCount = GetKeyPackageStatsOutput.SuiteCount
    typealias Output = GetKeyPackageStatsOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.getKeyPackageStats", .query) { context in
            let caller = context.caller
            let suite = try context.parameters.string("cipherSuite").map(CipherSuiteName.id)
            let stats = try env.store.keyPackageStats(owner: caller, cipherSuite: suite)
            let threshold = env.limits.keyPackageThreshold
            return .json(Output(available: stats.available, consumed: stats.consumed, threshold: threshold,
                                needsReplenish: stats.available < threshold,
                                byCipherSuite: stats.byCipherSuite.sorted { $0.key < $1.key }.map {
                                    SuiteCount(cipherSuite: CipherSuiteName.name($0.key), available: $0.value)
                                },
                                lastResort: stats.lastResortSuites.isEmpty ? nil
                                    : stats.lastResortSuites.sorted().map(CipherSuiteName.name)))
        }
    }
}
