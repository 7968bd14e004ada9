import Foundation
import MLSVectors
import XCTest

/// The passive-client vector files through the mls-vectors checks: a member joins by Welcome and
/// follows every epoch, and a PublicGroup built from the Welcome's GroupInfo validates every commit
/// with public data only and ends each epoch with the member's epoch, tree hash and GroupContext.
final class PublicGroupVectorTests: XCTestCase {
    private func run(_ name: String, expectedCases: Int, suites: Set<UInt16>) throws {
        let url = CodecFixtures.vectorDirectory.appendingPathComponent("\(name).json")
        let file = try XCTUnwrap(VectorCatalog.file(named: name))
        XCTAssertNotNil(file.check, "\(name) has no check")
        let outcomes = try file.run(contentsOf: url)
        XCTAssertEqual(outcomes.count, expectedCases, name)
        XCTAssertEqual(Set(outcomes.compactMap(\.suite)), suites, name)
        for (index, outcome) in outcomes.enumerated() where !outcome.passed {
            XCTFail("\(name) case \(index) (suite \(outcome.suite.map(String.init) ?? "-")): \(outcome.failure ?? "")")
        }
    }

    func test_passiveClientWelcome() throws { try run("passive-client-welcome", expectedCases: 56, suites: Set(1...7)) }
    func test_passiveClientHandlingCommit() throws { try run("passive-client-handling-commit", expectedCases: 91, suites: Set(1...7)) }
    func test_passiveClientRandom() throws { try run("passive-client-random", expectedCases: 1, suites: [1]) }
}
