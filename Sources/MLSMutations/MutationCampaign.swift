import MLS

/// The differential test of PublicGroup against our members (issue 13): every scenario of every
/// suite, every mutant of its commit and of its GroupInfo, judged by both faces.
public struct MutationCampaign: Sendable {
    public var suites: [CipherSuite]
    /// Random bit flips per base commit, on top of the structural mutants.
    public var byteFlips: Int
    /// Only the scenarios whose name is listed (all when nil).
    public var scenarios: Set<String>?

    /// Called with every mutant's scenario, field and outcome (for `mls-mutants --explain`).
    public var explain: (@Sendable (String, String, MutantOutcome) -> Void)?

    public init(suites: [CipherSuite], byteFlips: Int, scenarios: Set<String>? = nil) {
        self.suites = suites
        self.byteFlips = byteFlips
        self.scenarios = scenarios
    }

    public struct Report: Sendable {
        public var mutants = 0
        public var bothAccept = 0
        public var bothReject = 0
        /// Secret-dependent mutants PublicGroup accepted and a member refused, by field.
        public var beyondObserver: [String: Int] = [:]
        public var disagreements: [String] = []
        public var bySuite: [UInt16: Int] = [:]
        public var baseCommits = 0

        public var beyondObserverCount: Int { beyondObserver.values.reduce(0, +) }
        /// Mutants whose verdict a public observer can reach: all but the beyond-observer ones.
        public var decidable: Int { mutants - beyondObserverCount }
        public var agreed: Int { bothAccept + bothReject }

        mutating func record(_ outcome: MutantOutcome, field: String, scenario: String, suite: CipherSuite,
                             explain: (@Sendable (String, String, MutantOutcome) -> Void)?) {
            explain?("suite \(suite.rawValue) \(scenario)", field, outcome)
            mutants += 1
            bySuite[suite.rawValue, default: 0] += 1
            switch outcome {
            case .bothAccept: bothAccept += 1
            case .bothReject: bothReject += 1
            case .beyondObserver: beyondObserver[Self.family(of: field), default: 0] += 1
            case .disagreement(let why): disagreements.append("suite \(suite.rawValue) \(scenario): \(field): \(why)")
            }
        }

        /// The field of a mutant with every number replaced by `n`, to group the beyond-observer counts.
        static func family(of field: String) -> String {
            var result = ""
            var inNumber = false
            for character in field {
                if character.isNumber {
                    if !inNumber { result.append("n") }
                    inNumber = true
                } else {
                    result.append(character)
                    inNumber = false
                }
            }
            return result
        }
    }

    /// Runs the campaign; `progress` gets one line per scenario.
    public func run(now: UInt64, progress: (String) -> Void = { _ in }) throws -> Report {
        var report = Report()
        for suite in suites {
            for scenario in try CommitScenario.all(suite: suite, now: now) where scenarios?.contains(scenario.name) ?? true {
                let before = report.mutants
                report.baseCommits += 1
                for mutant in try scenario.commitMutants(byteFlips: byteFlips) {
                    report.record(scenario.judge(mutant), field: mutant.field, scenario: scenario.name, suite: suite,
                                  explain: explain)
                }
                let next = try scenario.observer.validateAndApply(
                    commit: MLSMessage(body: .publicMessage(scenario.original)), now: now)
                let members = try scenario.membersAfterCommit()
                for mutant in try scenario.groupInfoMutants(next: next) {
                    report.record(scenario.judge(mutant, next: next, members: members), field: mutant.field,
                                  scenario: scenario.name, suite: suite, explain: explain)
                }
                progress("suite \(suite.rawValue) \(scenario.name): \(report.mutants - before) mutants")
            }
        }
        return report
    }
}
