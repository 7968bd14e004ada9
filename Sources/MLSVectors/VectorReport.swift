/// Formats outcomes as `<file>: <passed>/<total>` with the per-suite split.
public struct VectorReport: Sendable {
    public private(set) var passed = 0
    public private(set) var total = 0

    public init() {}

    /// Records a file's outcomes and returns the lines that describe it.
    @discardableResult
    public mutating func add(file: String, outcomes: [VectorOutcome], showFailures: Int = 3) -> [String] {
        var lines: [String] = []
        let ok = outcomes.filter(\.passed).count
        passed += ok
        total += outcomes.count
        lines.append("\(file): \(ok)/\(outcomes.count)")
        let suites = Set(outcomes.compactMap(\.suite)).sorted()
        if !suites.isEmpty {
            let split = suites.map { suite -> String in
                let inSuite = outcomes.filter { $0.suite == suite }
                return "suite \(suite) \(inSuite.filter(\.passed).count)/\(inSuite.count)"
            }
            lines.append("  " + split.joined(separator: ", "))
        }
        for failure in outcomes.compactMap(\.failure).prefix(showFailures) {
            lines.append("  failed: \(failure)")
        }
        return lines
    }

    @discardableResult
    public mutating func addUnreadable(file: String, error: Error) -> [String] {
        total += 1
        return ["\(file): 0/1 (unreadable: \(error))"]
    }

    public var summary: String { "TOTAL: \(passed)/\(total)" }
}
