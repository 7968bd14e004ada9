import Foundation
import MLSVectors

// Usage: mls-vectors [DIR] [FILE ...]
// DIR defaults to ../shared/mls-test-vectors; FILE names limit the run to those files.
var arguments = Array(CommandLine.arguments.dropFirst())
var directory = "../shared/mls-test-vectors"
if let first = arguments.first, !first.hasSuffix(".json"), VectorCatalog.file(named: first) == nil {
    directory = first
    arguments.removeFirst()
}
let selected = arguments.isEmpty ? VectorCatalog.files : arguments.compactMap(VectorCatalog.file(named:))
if !arguments.isEmpty && selected.count != arguments.count {
    FileHandle.standardError.write("unknown vector file in \(arguments)\n".data(using: .utf8)!)
    exit(2)
}

var report = VectorReport()
for file in selected {
    let url = URL(fileURLWithPath: directory).appendingPathComponent(file.name + ".json")
    let lines: [String]
    do {
        lines = report.add(file: file.name, outcomes: try file.run(contentsOf: url))
    } catch {
        lines = report.addUnreadable(file: file.name, error: error)
    }
    print(lines.joined(separator: "\n"))
    fflush(nil)
}
print(report.summary)
print("vectors: \(report.passed) passed, \(report.total - report.passed) failed")
exit(report.passed == report.total ? 0 : 1)
