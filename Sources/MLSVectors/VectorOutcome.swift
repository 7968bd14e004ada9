import Foundation

/// The result of one test case of one vector file.
public struct VectorOutcome: Sendable {
    /// The case's cipher suite, or nil for suite-independent files.
    public var suite: UInt16?
    /// Why the case failed; nil when it passed.
    public var failure: String?

    public var passed: Bool { failure == nil }

    public init(suite: UInt16?, failure: String? = nil) {
        self.suite = suite
        self.failure = failure
    }
}

/// A failed check inside a vector case.
public struct VectorMismatch: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One JSON test-vector file and the function that checks its cases.
public struct VectorFile: Sendable {
    public let name: String
    /// Checks one case (a JSON object); throws to fail it.
    public let check: (@Sendable ([String: Any]) throws -> Void)?

    public init(name: String, check: (@Sendable ([String: Any]) throws -> Void)?) {
        self.name = name
        self.check = check
    }

    /// Runs every case of the file at `url`. Cases the core cannot run yet count as failed.
    public func run(contentsOf url: URL) throws -> [VectorOutcome] {
        let data = try Data(contentsOf: url)
        guard let cases = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw VectorMismatch("\(name): not a JSON array of objects")
        }
        return cases.map { testCase in
            let suite = (testCase["cipher_suite"] as? NSNumber).map { UInt16(truncating: $0) }
            guard let check else { return VectorOutcome(suite: suite, failure: "not implemented") }
            do {
                try check(testCase)
                return VectorOutcome(suite: suite)
            } catch {
                return VectorOutcome(suite: suite, failure: "\(error)")
            }
        }
    }
}
