import Foundation
import MLSVectors
import XCTest

/// Runs the crypto-layer interop vector files ($MLS_TEST_VECTORS, else ../shared/mls-test-vectors) through the same checks as
/// the mls-vectors runner; every case of every suite must pass.
final class CryptoVectorTests: XCTestCase {
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

    private let allSuites = Set<UInt16>(1...7)

    func test_treeMath() throws { try run("tree-math", expectedCases: 10, suites: []) }
    func test_cryptoBasics() throws { try run("crypto-basics", expectedCases: 7, suites: allSuites) }
    func test_secretTree() throws { try run("secret-tree", expectedCases: 21, suites: allSuites) }
    func test_keySchedule() throws { try run("key-schedule", expectedCases: 7, suites: allSuites) }
    func test_pskSecret() throws { try run("psk_secret", expectedCases: 77, suites: allSuites) }
}
