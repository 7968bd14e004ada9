import Foundation
import MLS
import MLSVectors
import Primitives
import XCTest

/// Transcript hashes and the confirmation tag (RFC 9420 §8.2), and the transcript-hashes vectors.
final class TranscriptHashTests: XCTestCase {
    private func signedCommit(_ f: FramingFixture, tag: [UInt8]?) throws -> AuthenticatedContent {
        var commit = try AuthenticatedContent.signed(
            wireFormat: .publicMessage, content: f.framed(FramingFixture.commit), signingKey: f.signingKey,
            context: f.context, suite: f.suite)
        commit.auth.confirmationTag = tag
        return commit
    }

    func test_vectors_allPass() throws {
        let file = try XCTUnwrap(VectorCatalog.file(named: "transcript-hashes"))
        let outcomes = try file.run(contentsOf: CodecFixtures.vectorDirectory.appendingPathComponent("transcript-hashes.json"))
        XCTAssertEqual(outcomes.count, 7)
        XCTAssertEqual(outcomes.compactMap(\.failure), [])
    }

    func test_vectors_failWhenAnInputChanges() throws {
        let data = try Data(contentsOf: CodecFixtures.vectorDirectory.appendingPathComponent("transcript-hashes.json"))
        let cases = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        for field in ["confirmation_key", "interim_transcript_hash_before"] {
            var testCase = cases[0]
            var bytes = try VectorJSON.hex(testCase, field)
            bytes[0] ^= 1
            testCase[field] = bytes.hexString
            XCTAssertThrowsError(try TranscriptHashesVectors.check(testCase), field)
        }
    }

    func test_hashes_followTheRFCChaining() throws {
        let f = try FramingFixture()
        let tag = SecureRandom.bytes(f.suite.nh)
        let commit = try signedCommit(f, tag: tag)
        let before = SecureRandom.bytes(f.suite.nh)
        let hashes = try TranscriptHashes.afterCommit(suite: f.suite, interimBefore: before, commit: commit)
        // ConfirmedTranscriptHashInput = wire_format || FramedContent || opaque signature<V>.
        var input = TLSWriter()
        input.write(WireFormat.publicMessage)
        input.write(commit.content)
        input.writeOpaque(commit.auth.signature)
        XCTAssertEqual(hashes.confirmed, f.suite.hash(before + input.bytes))
        var interimInput = TLSWriter()
        interimInput.writeOpaque(tag)
        XCTAssertEqual(hashes.interim, f.suite.hash(hashes.confirmed + interimInput.bytes))
        XCTAssertEqual(TranscriptHashes.fromConfirmed(suite: f.suite, confirmed: hashes.confirmed, confirmationTag: tag), hashes)
    }

    func test_confirmedHash_dependsOnSignatureAndHistory_notOnTheTag() throws {
        let f = try FramingFixture()
        let commit = try signedCommit(f, tag: [1, 2, 3])
        let before = SecureRandom.bytes(f.suite.nh)
        let base = try TranscriptHashes.afterCommit(suite: f.suite, interimBefore: before, commit: commit)
        var otherTag = commit
        otherTag.auth.confirmationTag = [4, 5, 6]
        let withOtherTag = try TranscriptHashes.afterCommit(suite: f.suite, interimBefore: before, commit: otherTag)
        XCTAssertEqual(withOtherTag.confirmed, base.confirmed)
        XCTAssertNotEqual(withOtherTag.interim, base.interim)
        var otherSignature = commit
        otherSignature.auth.signature[0] ^= 1
        XCTAssertNotEqual(try TranscriptHashes.afterCommit(suite: f.suite, interimBefore: before, commit: otherSignature).confirmed, base.confirmed)
        XCTAssertNotEqual(try TranscriptHashes.afterCommit(suite: f.suite, interimBefore: before + [0], commit: commit).confirmed, base.confirmed)
    }

    func test_onlyCommitsWithTagsAdvanceTheTranscript() throws {
        let f = try FramingFixture()
        let proposal = try AuthenticatedContent.signed(
            wireFormat: .publicMessage, content: f.framed(FramingFixture.proposal), signingKey: f.signingKey,
            context: f.context, suite: f.suite)
        assertThrows(FramingError.notACommit) { try TranscriptHashes.afterCommit(suite: f.suite, interimBefore: [], commit: proposal) }
        assertThrows(FramingError.missingConfirmationTag) {
            try TranscriptHashes.afterCommit(suite: f.suite, interimBefore: [], commit: try self.signedCommit(f, tag: nil))
        }
    }

    func test_confirmationTag_verifiesOnlyWithTheRightKeyAndHash() throws {
        for suite in CipherSuite.allCases {
            let key = SecureRandom.bytes(suite.nh)
            let hash = SecureRandom.bytes(suite.nh)
            let tag = try ConfirmationTag.compute(suite: suite, confirmationKey: key, confirmedTranscriptHash: hash)
            XCTAssertEqual(tag.count, suite.nh)
            XCTAssertNoThrow(try ConfirmationTag.verify(tag, suite: suite, confirmationKey: key, confirmedTranscriptHash: hash))
            assertThrows(FramingError.invalidConfirmationTag) {
                try ConfirmationTag.verify(tag, suite: suite, confirmationKey: SecureRandom.bytes(suite.nh), confirmedTranscriptHash: hash)
            }
            assertThrows(FramingError.invalidConfirmationTag) {
                try ConfirmationTag.verify(tag, suite: suite, confirmationKey: key, confirmedTranscriptHash: hash + [0])
            }
            assertThrows(FramingError.invalidConfirmationTag) {
                try ConfirmationTag.verify(Array(tag.dropLast()), suite: suite, confirmationKey: key, confirmedTranscriptHash: hash)
            }
        }
    }
}
