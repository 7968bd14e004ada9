import Foundation
import MLSVectors

/// What one known-answer file yielded: cases passed out of cases run, and the first failures.
public struct CryptoVectorOutcome: Sendable {
    public var passed = 0
    public var total = 0
    /// A remark printed after the count (which parameter sets were run, which derivation was needed).
    public var note: String?
    public var failures: [String] = []

    public init() {}

    /// Runs one case: a thrown mismatch counts as a failure with its message.
    mutating func check(_ name: @autoclosure () -> String, _ body: () throws -> Void) {
        total += 1
        do {
            try body()
            passed += 1
        } catch {
            if failures.count < 5 { failures.append("\(name()): \(error)") }
        }
    }
}

/// One file of test data under the fetched data directory (scripts/fetch-test-data.sh) and the
/// function that checks it.
public struct CryptoVectorFile: Sendable {
    /// Its path under the data directory, also its name in the report.
    public let path: String
    let run: @Sendable (Data) throws -> CryptoVectorOutcome

    /// Every file `make test` requires; a missing one fails the run.
    public static let all: [CryptoVectorFile] =
        HashVectors.files + MLKEMVectors.files + XWingVectors.files

    public func run(directory: URL) throws -> CryptoVectorOutcome {
        try run(Data(contentsOf: directory.appendingPathComponent(path)))
    }
}

extension VectorJSON {
    /// The top-level JSON object of a vector file.
    static func document(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw VectorMismatch("not a JSON object")
        }
        return object
    }
}
