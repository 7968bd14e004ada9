import Foundation
import MLS
import MLSVectors
import Primitives
import XCTest

/// PublicMessage signing, membership tag and the checks on receipt (RFC 9420 §6.2).
final class MessageProtectionPublicTests: XCTestCase {
    func test_roundTrip_everySuite_proposalAndCommit() throws {
        for suite in CipherSuite.allCases {
            let f = try FramingFixture(suite: suite)
            for content in [FramingFixture.proposal, FramingFixture.commit] {
                let tag = content.contentType == .commit ? SecureRandom.bytes(suite.nh) : nil
                let message = try PublicMessage.protect(
                    f.framed(content), confirmationTag: tag, signingKey: f.signingKey, context: f.context,
                    membershipKey: f.membershipKey, suite: suite)
                XCTAssertEqual(message.membershipTag?.count, suite.nh)
                let wire = try MLSMessage(decoding: MLSMessage(body: .publicMessage(message)).encoded())
                guard case .publicMessage(let decoded) = wire.body else { return XCTFail("not a PublicMessage") }
                let opened = try decoded.unprotect(
                    context: f.context, membershipKey: f.membershipKey, signaturePublicKey: f.publicKey, suite: suite)
                XCTAssertEqual(opened.content, f.framed(content), "\(suite)")
                XCTAssertEqual(opened.auth.confirmationTag, tag)
                XCTAssertEqual(opened.wireFormat, .publicMessage)
            }
        }
    }

    func test_applicationData_refusedBothWays() throws {
        let f = try FramingFixture()
        assertThrows(FramingError.applicationMessageInPublicMessage) {
            try PublicMessage.protect(
                f.framed(FramingFixture.application), signingKey: f.signingKey, context: f.context,
                membershipKey: f.membershipKey, suite: f.suite)
        }
        // A peer that builds one anyway, correctly signed and tagged, is still refused.
        let signed = try AuthenticatedContent.signed(
            wireFormat: .publicMessage, content: f.framed(FramingFixture.application), signingKey: f.signingKey,
            context: f.context, suite: f.suite)
        let tbm = AuthenticatedContentTBM(contentTBS: signed.tbs(context: f.context), auth: signed.auth)
        let forged = PublicMessage(
            content: signed.content, auth: signed.auth,
            membershipTag: try MembershipTag.compute(suite: f.suite, membershipKey: f.membershipKey, tbm: tbm))
        assertThrows(FramingError.applicationMessageInPublicMessage) {
            try forged.unprotect(context: f.context, membershipKey: f.membershipKey, signaturePublicKey: f.publicKey, suite: f.suite)
        }
    }

    func test_tamperedSignature_withRecomputedMembershipTag_isInvalidSignature() throws {
        let f = try FramingFixture()
        var message = try PublicMessage.protect(
            f.framed(FramingFixture.proposal), signingKey: f.signingKey, context: f.context,
            membershipKey: f.membershipKey, suite: f.suite)
        message.auth.signature[5] ^= 0x01
        // An insider knows the membership key, so only the signature stands in the way.
        let tbm = AuthenticatedContentTBM(contentTBS: message.authenticatedContent.tbs(context: f.context), auth: message.auth)
        message.membershipTag = try MembershipTag.compute(suite: f.suite, membershipKey: f.membershipKey, tbm: tbm)
        assertThrows(FramingError.invalidSignature) {
            try message.unprotect(context: f.context, membershipKey: f.membershipKey, signaturePublicKey: f.publicKey, suite: f.suite)
        }
    }

    func test_otherSignersKey_isInvalidSignature() throws {
        let f = try FramingFixture()
        let message = try PublicMessage.protect(
            f.framed(FramingFixture.proposal), signingKey: f.signingKey, context: f.context,
            membershipKey: f.membershipKey, suite: f.suite)
        let other = try f.suite.signatureScheme.generatePrivateKey().publicKey.bytes
        assertThrows(FramingError.invalidSignature) {
            try message.unprotect(context: f.context, membershipKey: f.membershipKey, signaturePublicKey: other, suite: f.suite)
        }
        assertThrows(FramingError.invalidSignature) {
            try message.unprotect(context: f.context, membershipKey: f.membershipKey, signaturePublicKey: [1, 2, 3], suite: f.suite)
        }
    }

    func test_membershipTag_wrongKeyTamperedContentOrMissing() throws {
        let f = try FramingFixture()
        let message = try PublicMessage.protect(
            f.framed(FramingFixture.proposal), signingKey: f.signingKey, context: f.context,
            membershipKey: f.membershipKey, suite: f.suite)
        assertThrows(FramingError.invalidMembershipTag) {
            try message.unprotect(
                context: f.context, membershipKey: SecureRandom.bytes(f.suite.nh), signaturePublicKey: f.publicKey, suite: f.suite)
        }
        var tampered = message
        tampered.content.authenticatedData = Array("other".utf8)
        assertThrows(FramingError.invalidMembershipTag) {
            try tampered.unprotect(context: f.context, membershipKey: f.membershipKey, signaturePublicKey: f.publicKey, suite: f.suite)
        }
        var stripped = message
        stripped.membershipTag = nil
        assertThrows(FramingError.invalidMembershipTag) {
            try stripped.unprotect(context: f.context, membershipKey: f.membershipKey, signaturePublicKey: f.publicKey, suite: f.suite)
        }
        assertThrows(FramingError.missingMembershipKey) {
            try message.unprotect(context: f.context, membershipKey: nil, signaturePublicKey: f.publicKey, suite: f.suite)
        }
        assertThrows(FramingError.missingMembershipKey) {
            try PublicMessage.protect(
                f.framed(FramingFixture.proposal), signingKey: f.signingKey, context: f.context, membershipKey: nil, suite: f.suite)
        }
    }

    func test_wrongEpochOrGroup_areRefusedBeforeAnyCrypto() throws {
        let f = try FramingFixture(epoch: 7)
        let message = try PublicMessage.protect(
            f.framed(FramingFixture.proposal), signingKey: f.signingKey, context: f.context,
            membershipKey: f.membershipKey, suite: f.suite)
        var nextEpoch = f.context
        nextEpoch.epoch = 8
        assertThrows(FramingError.wrongEpoch(expected: 8, actual: 7)) {
            try message.unprotect(context: nextEpoch, membershipKey: f.membershipKey, signaturePublicKey: f.publicKey, suite: f.suite)
        }
        var otherGroup = f.context
        otherGroup.groupID = Array("another group".utf8)
        assertThrows(FramingError.wrongGroupID) {
            try message.unprotect(context: otherGroup, membershipKey: f.membershipKey, signaturePublicKey: f.publicKey, suite: f.suite)
        }
        // The signature covers the GroupContext: a different tree hash in the same epoch fails.
        var otherTree = f.context
        otherTree.treeHash = SecureRandom.bytes(f.suite.nh)
        XCTAssertThrowsError(
            try message.unprotect(context: otherTree, membershipKey: f.membershipKey, signaturePublicKey: f.publicKey, suite: f.suite))
    }

    func test_commitNeedsConfirmationTag() throws {
        let f = try FramingFixture()
        assertThrows(FramingError.missingConfirmationTag) {
            try PublicMessage.protect(
                f.framed(FramingFixture.commit), signingKey: f.signingKey, context: f.context,
                membershipKey: f.membershipKey, suite: f.suite)
        }
        assertThrows(FramingError.missingConfirmationTag) {
            try PublicMessage.protect(
                f.framed(FramingFixture.commit), confirmationTag: [], signingKey: f.signingKey, context: f.context,
                membershipKey: f.membershipKey, suite: f.suite)
        }
    }

    func test_nonMemberSenders_carryNoMembershipTag() throws {
        let f = try FramingFixture()
        for sender in [Sender.external(senderIndex: 0), .newMemberProposal] {
            let message = try PublicMessage.protect(
                f.framed(FramingFixture.proposal, sender: sender), signingKey: f.signingKey, context: f.context,
                membershipKey: nil, suite: f.suite)
            XCTAssertNil(message.membershipTag)
            let opened = try message.unprotect(context: f.context, membershipKey: nil, signaturePublicKey: f.publicKey, suite: f.suite)
            XCTAssertEqual(opened.content.sender, sender)
        }
        // A new-member commit signs the GroupContext too (RFC 9420 §6.1).
        let tag = SecureRandom.bytes(f.suite.nh)
        let external = try PublicMessage.protect(
            f.framed(FramingFixture.commit, sender: .newMemberCommit), confirmationTag: tag, signingKey: f.signingKey,
            context: f.context, membershipKey: nil, suite: f.suite)
        XCTAssertNil(external.membershipTag)
        XCTAssertNoThrow(try external.unprotect(context: f.context, membershipKey: nil, signaturePublicKey: f.publicKey, suite: f.suite))
        var otherContext = f.context
        otherContext.confirmedTranscriptHash = SecureRandom.bytes(f.suite.nh)
        assertThrows(FramingError.invalidSignature) {
            try external.unprotect(context: otherContext, membershipKey: nil, signaturePublicKey: f.publicKey, suite: f.suite)
        }
    }

    func test_nonMemberSenders_limitedToTheirContentType() throws {
        let f = try FramingFixture()
        let tag = SecureRandom.bytes(f.suite.nh)
        for (sender, content) in [(Sender.external(senderIndex: 0), FramingFixture.commit),
                                  (.newMemberProposal, FramingFixture.commit),
                                  (.newMemberCommit, FramingFixture.proposal)] {
            assertThrows(FramingError.contentTypeNotAllowedForSender) {
                try PublicMessage.protect(
                    f.framed(content, sender: sender), confirmationTag: tag, signingKey: f.signingKey, context: f.context,
                    membershipKey: nil, suite: f.suite)
            }
            // Built and signed anyway, the receiver refuses it too.
            var signed = try AuthenticatedContent.signed(
                wireFormat: .publicMessage, content: f.framed(content, sender: sender), signingKey: f.signingKey,
                context: f.context, suite: f.suite)
            if content.contentType == .commit { signed.auth.confirmationTag = tag }
            let message = PublicMessage(content: signed.content, auth: signed.auth)
            assertThrows(FramingError.contentTypeNotAllowedForSender) {
                try message.unprotect(context: f.context, membershipKey: nil, signaturePublicKey: f.publicKey, suite: f.suite)
            }
        }
    }

    func test_verifiedContent_checksEverythingButTheMembershipTag() throws {
        let f = try FramingFixture()
        var message = try PublicMessage.protect(
            f.framed(FramingFixture.commit), confirmationTag: SecureRandom.bytes(f.suite.nh), signingKey: f.signingKey,
            context: f.context, membershipKey: f.membershipKey, suite: f.suite)
        // A delivery service has no membership key: a wrong tag does not stop it, a bad signature does.
        message.membershipTag = SecureRandom.bytes(f.suite.nh)
        let content = try message.verifiedContent(context: f.context, signaturePublicKey: f.publicKey, suite: f.suite)
        XCTAssertEqual(content.content, f.framed(FramingFixture.commit))
        var nextEpoch = f.context
        nextEpoch.epoch += 1
        assertThrows(FramingError.wrongEpoch(expected: nextEpoch.epoch, actual: f.context.epoch)) {
            try message.verifiedContent(context: nextEpoch, signaturePublicKey: f.publicKey, suite: f.suite)
        }
        message.auth.signature[1] ^= 1
        assertThrows(FramingError.invalidSignature) {
            try message.verifiedContent(context: f.context, signaturePublicKey: f.publicKey, suite: f.suite)
        }
    }

    func test_wireFormatOfSignedContent_mustMatchEnvelope() throws {
        let f = try FramingFixture()
        let signed = try AuthenticatedContent.signed(
            wireFormat: .privateMessage, content: f.framed(FramingFixture.proposal), signingKey: f.signingKey,
            context: f.context, suite: f.suite)
        assertThrows(FramingError.wrongWireFormat) {
            try PublicMessage(protecting: signed, membershipKey: f.membershipKey, context: f.context, suite: f.suite)
        }
    }
}

/// The message-protection vectors, and proof that the check fails on altered inputs.
final class MessageProtectionVectorTests: XCTestCase {
    private func cases() throws -> [[String: Any]] {
        let data = try Data(contentsOf: CodecFixtures.vectorDirectory.appendingPathComponent("message-protection.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    func test_vectors_allPass() throws {
        let file = try XCTUnwrap(VectorCatalog.file(named: "message-protection"))
        let outcomes = try file.run(contentsOf: CodecFixtures.vectorDirectory.appendingPathComponent("message-protection.json"))
        XCTAssertEqual(outcomes.count, 7)
        XCTAssertEqual(outcomes.compactMap(\.failure), [])
    }

    func test_vectors_failWithAlteredKeys() throws {
        let testCase = try cases()[0]
        for field in ["membership_key", "sender_data_secret", "encryption_secret", "confirmed_transcript_hash"] {
            var altered = testCase
            var bytes = try VectorJSON.hex(altered, field)
            bytes[bytes.count - 1] ^= 1
            altered[field] = bytes.hexString
            XCTAssertThrowsError(try MessageProtectionVectors.check(altered), field)
        }
    }
}
