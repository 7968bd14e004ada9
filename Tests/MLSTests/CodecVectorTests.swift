import Basics
import Foundation
import MLS
import MLSVectors
import MLSMutations
import XCTest

/// The deserialization and messages vector files, plus truncation and mutation of their objects.
final class CodecVectorTests: XCTestCase {
    private func run(_ name: String) throws -> [VectorOutcome] {
        let file = try XCTUnwrap(VectorCatalog.file(named: name))
        return try file.run(contentsOf: CodecFixtures.vectorDirectory.appendingPathComponent(name + ".json"))
    }

    func testDeserializationVectors_allPass() throws {
        let outcomes = try run("deserialization")
        XCTAssertEqual(outcomes.count, 14)
        XCTAssertEqual(outcomes.compactMap(\.failure), [])
    }

    func testMessagesVectors_allPass() throws {
        let outcomes = try run("messages")
        XCTAssertEqual(outcomes.count, 300)
        XCTAssertEqual(outcomes.compactMap(\.failure), [])
    }

    func testMessagesObjects_everyPrefixThrows() throws {
        let cases = try CodecFixtures.messagesCases()
        // One case per cipher suite (the file holds 100 of each, in order).
        for index in [0, 100, 200] {
            for (name, decode) in CodecFixtures.decoders {
                let bytes = try VectorJSON.hex(cases[index], name)
                assertEveryPrefixThrows(bytes) { b in _ = try decode(b) }
            }
        }
    }

    func testMessagesObjects_trailingByteRejected() throws {
        let cases = try CodecFixtures.messagesCases()
        for (name, decode) in CodecFixtures.decoders {
            let bytes = try VectorJSON.hex(cases[0], name)
            XCTAssertThrowsError(try decode(bytes + [0]), name)
        }
    }

    /// Flipping bytes must give a throw or a value that re-encodes to exactly the mutated bytes.
    func testMessagesObjects_randomByteFlips_throwOrRoundTrip() throws {
        let cases = try CodecFixtures.messagesCases()
        var rng = SplitMix64(seed: 0x4D4C_5320_3934_3230)
        var decodedCount = 0
        var rejectedCount = 0
        for testCase in cases {
            for (name, decode) in CodecFixtures.decoders.sorted(by: { $0.key < $1.key }) {
                let original = try VectorJSON.hex(testCase, name)
                guard !original.isEmpty else { continue }
                for _ in 0..<4 {
                    var mutated = original
                    for _ in 0..<Int.random(in: 1...3, using: &rng) {
                        let position = Int.random(in: 0..<mutated.count, using: &rng)
                        mutated[position] ^= UInt8.random(in: 1...255, using: &rng)
                    }
                    do {
                        let reencoded = try decode(mutated)
                        decodedCount += 1
                        if reencoded != mutated {
                            XCTFail("\(name): mutated object decoded but re-encoded differently: \(mutated.hexString)")
                            return
                        }
                    } catch is DecodingError {
                        rejectedCount += 1
                    }
                }
            }
        }
        // Both outcomes must occur, or the mutations are not exercising the decoder.
        XCTAssertGreaterThan(decodedCount, 1000)
        XCTAssertGreaterThan(rejectedCount, 1000)
    }
}
