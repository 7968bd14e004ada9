// The differential proof of issue 13: commits made by our Group, altered field by field, must be
// accepted by PublicGroup (what the delivery service runs) exactly when every honest member
// processes them. `make test` runs it from a release build.
//   mls-mutants [--suites 1,2,3] [--byte-flips N] [--min N] [--quiet] [--scenario NAME] [--explain]
// --explain prints every mutant with its outcome (and PublicGroup's reason when both refuse).
//   mls-mutants --fuzz-seeds STATE DIR   writes a stored PublicGroup (suite 1, a pending proposal)
//   and its commit with every structural mutant as seeds for Tests/Fuzz/FuzzCommit.swift.
import Foundation
import MLS
import MLSMutations

var suites = [1, 2, 3].compactMap { CipherSuite(rawValue: $0) }
var byteFlips = 300
var minimum = 10_000
var quiet = false
var explain = false
var only: Set<String>?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--suites":
        suites = (arguments.popFirst() ?? "").split(separator: ",").compactMap { UInt16($0).flatMap(CipherSuite.init(rawValue:)) }
    case "--byte-flips": byteFlips = Int(arguments.popFirst() ?? "") ?? byteFlips
    case "--min": minimum = Int(arguments.popFirst() ?? "") ?? minimum
    case "--quiet": quiet = true
    case "--fuzz-seeds":
        guard let state = arguments.popFirst(), let directory = arguments.popFirst() else { exit(2) }
        do {
            let seeds = try FuzzSeeds.write(state: state, directory: directory)
            print("mls-mutants: wrote \(state) and \(seeds) seeds to \(directory)")
            exit(0)
        } catch {
            print("mls-mutants: \(error)")
            exit(1)
        }
    case "--explain": explain = true
    case "--scenario": only = (only ?? []).union([arguments.popFirst() ?? ""])
    default:
        FileHandle.standardError.write(Data(
            "usage: mls-mutants [--suites 1,2,3] [--byte-flips N] [--min N] [--quiet] [--scenario NAME] [--explain]\n".utf8))
        exit(2)
    }
}

var campaign = MutationCampaign(suites: suites, byteFlips: byteFlips, scenarios: only)
if explain {
    campaign.explain = { scenario, field, outcome in
        switch outcome {
        case .bothAccept: print("\(scenario) | \(field) | both accept")
        case .bothReject(let reason): print("\(scenario) | \(field) | both refuse: \(reason)")
        case .beyondObserver: print("\(scenario) | \(field) | beyond a public observer")
        case .disagreement(let why): print("\(scenario) | \(field) | DISAGREEMENT: \(why)")
        }
    }
}
let report: MutationCampaign.Report
do {
    report = try campaign.run(now: UInt64(Date().timeIntervalSince1970)) { if !quiet { print($0) } }
} catch {
    print("mls-mutants: could not build the scenarios: \(error)")
    exit(1)
}

func percent(_ part: Int, _ whole: Int) -> String { String(format: "%.2f%%", whole == 0 ? 0 : 100 * Double(part) / Double(whole)) }

for (suite, count) in report.bySuite.sorted(by: { $0.key < $1.key }) { print("suite \(suite): \(count) mutants") }
print("mutants: \(report.mutants) from \(report.baseCommits) base commits (both faces accept \(report.bothAccept), both refuse \(report.bothReject))")
print("agreement: \(report.agreed)/\(report.decidable) publicly decidable mutants (\(percent(report.agreed, report.decidable)))")
print("beyond a public observer: \(report.beyondObserverCount) secret-dependent mutants that PublicGroup accepts and a member refuses")
for (family, count) in report.beyondObserver.sorted(by: { $0.key < $1.key }) { print("  \(count) \(family)") }
for line in report.disagreements.prefix(50) { print("DISAGREEMENT \(line)") }
if !report.disagreements.isEmpty {
    print("mls-mutants: FAILED, \(report.disagreements.count) disagreements")
    exit(1)
}
if report.mutants < minimum {
    print("mls-mutants: FAILED, \(report.mutants) mutants, fewer than \(minimum)")
    exit(1)
}
print("mls-mutants: passed")

/// The stored state and seeds of the commit fuzz target.
enum FuzzSeeds {
    static func write(state path: String, directory: String) throws -> Int {
        let now = UInt64(Date().timeIntervalSince1970)
        guard let scenario = try CommitScenario.all(suite: CipherSuite(rawValue: 1)!, now: now)
            .first(where: { $0.name == "pending-remove-by-reference" }) else { throw CocoaError(.featureUnsupported) }
        try Data(scenario.observer.serialize()).write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let mutants = try scenario.commitMutants(byteFlips: 0)
        let seeds = [MLSMessage(body: .publicMessage(scenario.original)).encoded()] + mutants.map(\.bytes)
        for (index, bytes) in seeds.enumerated() {
            try Data(bytes).write(to: URL(fileURLWithPath: directory).appendingPathComponent(String(format: "%04d", index)))
        }
        return seeds.count
    }
}
