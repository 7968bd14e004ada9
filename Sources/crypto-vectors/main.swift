import CryptoVectors
import Foundation

// Usage: crypto-vectors [DIR]
// DIR (default .data/test-data, filled by scripts/fetch-test-data.sh) holds the known-answer files
// for ML-KEM-768, X-Wing, HPKE over X-Wing and SHA-3/SHAKE. Prints `<file>: <passed>/<total>` per
// file; a missing or unreadable file, or any failed case, fails the run.
let directory = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? ".data/test-data")
var passed = 0, total = 0, missing = 0
for file in CryptoVectorFile.all {
    do {
        let outcome = try file.run(directory: directory)
        passed += outcome.passed
        total += outcome.total
        let status = outcome.total > 0 && outcome.passed == outcome.total ? "" : "  FAILED"
        print("\(file.path): \(outcome.passed)/\(outcome.total)\(outcome.note.map { "  (\($0))" } ?? "")\(status)")
        if outcome.total == 0 { missing += 1 }
        for failure in outcome.failures { print("    \(failure)") }
    } catch {
        missing += 1
        print("\(file.path): MISSING or unreadable (\(error))  FAILED")
    }
    fflush(nil)
}
print("crypto vectors: \(passed) passed, \(total - passed) failed\(missing > 0 ? ", \(missing) files missing or empty" : "")")
exit(passed == total && missing == 0 ? 0 : 1)
