import MLS
import Primitives
import XCTest

/// PrivateMessage encryption, sender data, padding and the receiver's checks (RFC 9420 §6.3).
final class MessageProtectionPrivateTests: XCTestCase {
    private func protect(
        _ f: FramingFixture, _ content: Content, tree: inout SecretTree, padding: PrivateMessagePadding = .none
    ) throws -> PrivateMessage {
        let tag = content.contentType == .commit ? SecureRandom.bytes(f.suite.nh) : nil
        return try PrivateMessage.protect(
            f.framed(content), confirmationTag: tag, signingKey: f.signingKey, context: f.context, secretTree: &tree,
            senderDataSecret: f.senderDataSecret, suite: f.suite, padding: padding)
    }

    private func unprotect(_ f: FramingFixture, _ message: PrivateMessage, tree: inout SecretTree) throws -> AuthenticatedContent {
        try message.unprotect(
            context: f.context, secretTree: &tree, senderDataSecret: f.senderDataSecret, suite: f.suite,
            signaturePublicKey: f.lookup)
    }

    func test_roundTrip_everySuite_everyContentType() throws {
        for suite in CipherSuite.allCases {
            let f = try FramingFixture(suite: suite)
            var sender = try f.tree()
            var receiver = try f.tree()
            for content in [FramingFixture.proposal, FramingFixture.commit, FramingFixture.application] {
                let message = try protect(f, content, tree: &sender)
                let wire = try MLSMessage(decoding: MLSMessage(body: .privateMessage(message)).encoded())
                guard case .privateMessage(let decoded) = wire.body else { return XCTFail("not a PrivateMessage") }
                let opened = try unprotect(f, decoded, tree: &receiver)
                XCTAssertEqual(opened.content, f.framed(content), "\(suite) \(content.contentType)")
                XCTAssertEqual(opened.wireFormat, .privateMessage)
                XCTAssertEqual(opened.auth.confirmationTag == nil, content.contentType != .commit)
            }
            // Proposal and commit took handshake generations 0 and 1; the application ratchet is separate.
            XCTAssertEqual(try sender.currentGeneration(leaf: f.sender, type: .handshake), 2)
            XCTAssertEqual(try sender.currentGeneration(leaf: f.sender, type: .application), 1)
        }
    }

    func test_senderData_namesLeafAndGeneration() throws {
        let f = try FramingFixture()
        var sender = try f.tree()
        _ = try protect(f, FramingFixture.application, tree: &sender)
        let second = try protect(f, FramingFixture.application, tree: &sender)
        let senderData = try second.decryptSenderData(senderDataSecret: f.senderDataSecret, suite: f.suite)
        XCTAssertEqual(senderData.leafIndex, f.sender)
        XCTAssertEqual(senderData.generation, 1)
        XCTAssertEqual(senderData.reuseGuard.count, 4)
    }

    func test_padding_zerosAndBlockMultiple() throws {
        let f = try FramingFixture()
        var sender = try f.tree()
        var receiver = try f.tree()
        let plain = try protect(f, FramingFixture.application, tree: &sender)
        let padded = try protect(f, FramingFixture.application, tree: &sender, padding: .zeros(100))
        XCTAssertEqual(padded.ciphertext.count, plain.ciphertext.count + 100)
        for block in [16, 64, 256] {
            let message = try protect(f, FramingFixture.application, tree: &sender, padding: .toMultiple(of: block))
            XCTAssertEqual((message.ciphertext.count - f.suite.aead.tagSize) % block, 0)
            XCTAssertGreaterThanOrEqual(message.ciphertext.count, plain.ciphertext.count)
        }
        XCTAssertEqual(try unprotect(f, padded, tree: &receiver).content.content, FramingFixture.application)
        assertThrows(FramingError.invalidPadding) { try self.protect(f, FramingFixture.application, tree: &sender, padding: .zeros(-1)) }
        assertThrows(FramingError.invalidPadding) {
            try self.protect(f, FramingFixture.application, tree: &sender, padding: .toMultiple(of: 0))
        }
        // More than an opaque<V> can carry is refused before anything is allocated.
        assertThrows(FramingError.invalidPadding) {
            try self.protect(f, FramingFixture.application, tree: &sender, padding: .zeros(1 << 30))
        }
    }

    func test_tamperedCiphertext_isContentDecryptionFailure_andKeepsTheKey() throws {
        let f = try FramingFixture()
        var sender = try f.tree()
        var receiver = try f.tree()
        let message = try protect(f, FramingFixture.application, tree: &sender, padding: .zeros(64))
        var tampered = message
        // Past the first Nh bytes, so the sender-data key (sampled from the start) is unchanged.
        tampered.ciphertext[tampered.ciphertext.count - 1] ^= 0x80
        assertThrows(FramingError.contentDecryptionFailed) { try self.unprotect(f, tampered, tree: &receiver) }
        // The forgery did not consume generation 0: the genuine message still opens.
        XCTAssertEqual(try unprotect(f, message, tree: &receiver).content.content, FramingFixture.application)
    }

    func test_tamperedSenderDataOrSample_isSenderDataFailure() throws {
        let f = try FramingFixture()
        var sender = try f.tree()
        var receiver = try f.tree()
        let message = try protect(f, FramingFixture.proposal, tree: &sender)
        var badSenderData = message
        badSenderData.encryptedSenderData[0] ^= 0x01
        assertThrows(FramingError.senderDataDecryptionFailed) { try self.unprotect(f, badSenderData, tree: &receiver) }
        var badSample = message
        badSample.ciphertext[0] ^= 0x01
        assertThrows(FramingError.senderDataDecryptionFailed) { try self.unprotect(f, badSample, tree: &receiver) }
        assertThrows(FramingError.senderDataDecryptionFailed) {
            try message.unprotect(
                context: f.context, secretTree: &receiver, senderDataSecret: SecureRandom.bytes(f.suite.nh), suite: f.suite,
                signaturePublicKey: f.lookup)
        }
    }

    func test_wrongEpochOrGroupInAAD() throws {
        let f = try FramingFixture(epoch: 7)
        var sender = try f.tree()
        var receiver = try f.tree()
        let message = try protect(f, FramingFixture.proposal, tree: &sender)

        var nextEpoch = f.context
        nextEpoch.epoch = 8
        assertThrows(FramingError.wrongEpoch(expected: 8, actual: 7)) {
            try message.unprotect(context: nextEpoch, secretTree: &receiver, senderDataSecret: f.senderDataSecret, suite: f.suite,
                                  signaturePublicKey: f.lookup)
        }
        // A message relabelled to the receiver's epoch or group fails the sender-data AEAD.
        var relabelled = message
        relabelled.epoch = 8
        assertThrows(FramingError.senderDataDecryptionFailed) {
            try relabelled.unprotect(context: nextEpoch, secretTree: &receiver, senderDataSecret: f.senderDataSecret,
                                     suite: f.suite, signaturePublicKey: f.lookup)
        }
        var otherGroup = f.context
        otherGroup.groupID = Array("another group".utf8)
        var regrouped = message
        regrouped.groupID = otherGroup.groupID
        assertThrows(FramingError.wrongGroupID) {
            try message.unprotect(context: otherGroup, secretTree: &receiver, senderDataSecret: f.senderDataSecret,
                                  suite: f.suite, signaturePublicKey: f.lookup)
        }
        assertThrows(FramingError.senderDataDecryptionFailed) {
            try regrouped.unprotect(context: otherGroup, secretTree: &receiver, senderDataSecret: f.senderDataSecret,
                                    suite: f.suite, signaturePublicKey: f.lookup)
        }
        // authenticated_data is only in the content AAD, so changing it fails the content AEAD.
        var reAuthenticated = message
        reAuthenticated.authenticatedData = Array("changed".utf8)
        assertThrows(FramingError.contentDecryptionFailed) { try self.unprotect(f, reAuthenticated, tree: &receiver) }
        XCTAssertNoThrow(try unprotect(f, message, tree: &receiver))
    }

    /// Encrypts chosen plaintexts under valid keys, as a buggy or hostile member could.
    private func handEncrypted(
        _ f: FramingFixture, tree: inout SecretTree, contentType: ContentType, plaintext: [UInt8], senderData: [UInt8]? = nil
    ) throws -> PrivateMessage {
        var message = PrivateMessage(
            groupID: f.context.groupID, epoch: f.context.epoch, contentType: contentType,
            authenticatedData: [], encryptedSenderData: [], ciphertext: [])
        let keyNonce = try tree.next(leaf: f.sender, type: contentType == .application ? .application : .handshake)
        let reuseGuard: [UInt8] = [9, 8, 7, 6]
        message.ciphertext = try f.suite.seal(
            key: keyNonce.key, nonce: try SenderData.applyReuseGuard(reuseGuard, to: keyNonce.nonce),
            aad: message.contentAAD.encoded(), plaintext: plaintext)
        let senderKey = try SenderData.keyAndNonce(suite: f.suite, senderDataSecret: f.senderDataSecret, ciphertext: message.ciphertext)
        message.encryptedSenderData = try f.suite.seal(
            key: senderKey.key, nonce: senderKey.nonce, aad: message.senderDataAAD.encoded(),
            plaintext: senderData ?? SenderData(leafIndex: f.sender, generation: keyNonce.generation, reuseGuard: reuseGuard).encoded())
        return message
    }

    func test_nonZeroPadding_isRefused() throws {
        let f = try FramingFixture()
        var sender = try f.tree()
        var receiver = try f.tree()
        let signed = try AuthenticatedContent.signed(
            wireFormat: .privateMessage, content: f.framed(FramingFixture.application, authenticatedData: []),
            signingKey: f.signingKey, context: f.context, suite: f.suite)
        let content = PrivateMessageContent(content: signed.content.content, auth: signed.auth).encoded(paddingLength: 0)
        let good = try handEncrypted(f, tree: &sender, contentType: .application, plaintext: content + [0, 0, 0, 0])
        let bad = try handEncrypted(f, tree: &sender, contentType: .application, plaintext: content + [0, 0, 1, 0])
        XCTAssertEqual(try unprotect(f, good, tree: &receiver).content.content, FramingFixture.application)
        assertThrows(FramingError.nonZeroPadding) { try self.unprotect(f, bad, tree: &receiver) }
    }

    func test_malformedPlaintexts_areTyped() throws {
        let f = try FramingFixture()
        var sender = try f.tree()
        var receiver = try f.tree()
        let signed = try AuthenticatedContent.signed(
            wireFormat: .privateMessage, content: f.framed(FramingFixture.proposal, authenticatedData: []),
            signingKey: f.signingKey, context: f.context, suite: f.suite)
        let content = PrivateMessageContent(content: signed.content.content, auth: signed.auth).encoded(paddingLength: 0)
        // Truncated content: the signature's length prefix promises more than is there.
        let truncated = try handEncrypted(f, tree: &sender, contentType: .proposal, plaintext: Array(content.dropLast(3)))
        // Oversized: a varint length prefix far beyond the plaintext.
        let oversized = try handEncrypted(f, tree: &sender, contentType: .proposal, plaintext: [0x00, 0x03, 0, 0, 0, 1, 0xBF, 0xFF, 0xFF, 0xFF])
        // Sender data of the wrong size.
        let shortSenderData = try handEncrypted(f, tree: &sender, contentType: .proposal, plaintext: content, senderData: [0, 0, 0, 2, 0, 0])
        let longSenderData = try handEncrypted(
            f, tree: &sender, contentType: .proposal, plaintext: content,
            senderData: SenderData(leafIndex: f.sender, generation: 3, reuseGuard: [9, 8, 7, 6]).encoded() + [0])
        for message in [truncated, oversized, shortSenderData, longSenderData] {
            XCTAssertThrowsError(try unprotect(f, message, tree: &receiver)) { error in
                guard case FramingError.malformed = error else { return XCTFail("got \(error)") }
            }
        }
    }

    func test_reusedGeneration_isRefused() throws {
        let f = try FramingFixture()
        var sender = try f.tree()
        var receiver = try f.tree()
        let message = try protect(f, FramingFixture.application, tree: &sender)
        XCTAssertNoThrow(try unprotect(f, message, tree: &receiver))
        assertThrows(FramingError.schedule(.generationConsumed(0))) { try self.unprotect(f, message, tree: &receiver) }
    }

    func test_outOfOrderDelivery_withinTheWindow() throws {
        let f = try FramingFixture()
        var sender = try f.tree()
        var receiver = try f.tree()
        let messages = try (0..<4).map { _ in try protect(f, FramingFixture.application, tree: &sender) }
        for index in [3, 0, 2, 1] {
            XCTAssertNoThrow(try unprotect(f, messages[index], tree: &receiver), "message \(index)")
        }
    }

    func test_tamperedSignature_isInvalidSignature() throws {
        let f = try FramingFixture()
        var sender = try f.tree()
        var receiver = try f.tree()
        var signed = try AuthenticatedContent.signed(
            wireFormat: .privateMessage, content: f.framed(FramingFixture.proposal), signingKey: f.signingKey,
            context: f.context, suite: f.suite)
        signed.auth.signature[0] ^= 0x01
        let message = try PrivateMessage.encrypt(signed, secretTree: &sender, senderDataSecret: f.senderDataSecret, suite: f.suite)
        assertThrows(FramingError.invalidSignature) { try self.unprotect(f, message, tree: &receiver) }
        // Without the signature check the content is readable; the signature is what fails.
        var other = try f.tree()
        XCTAssertEqual(
            try message.decrypt(secretTree: &other, senderDataSecret: f.senderDataSecret, suite: f.suite).content.content,
            FramingFixture.proposal)
    }

    func test_unknownSender_doesNotConsumeTheKey() throws {
        let f = try FramingFixture()
        var sender = try f.tree()
        var receiver = try f.tree()
        let message = try protect(f, FramingFixture.application, tree: &sender)
        assertThrows(FramingError.unknownSender(.member(leafIndex: f.sender))) {
            try message.unprotect(context: f.context, secretTree: &receiver, senderDataSecret: f.senderDataSecret,
                                  suite: f.suite, signaturePublicKey: { _ in nil })
        }
        XCTAssertNoThrow(try unprotect(f, message, tree: &receiver))
    }

    func test_senderOutsideTheTree_isScheduleError() throws {
        let f = try FramingFixture()
        var big = try SecretTree(suite: f.suite, encryptionSecret: f.encryptionSecret, leafCount: 16)
        let content = FramedContent(
            groupID: f.context.groupID, epoch: f.context.epoch, sender: .member(leafIndex: 9), content: FramingFixture.application)
        let message = try PrivateMessage.protect(
            content, signingKey: f.signingKey, context: f.context, secretTree: &big, senderDataSecret: f.senderDataSecret,
            suite: f.suite)
        var receiver = try f.tree()
        assertThrows(FramingError.schedule(.invalidLeaf(9))) {
            try message.unprotect(context: f.context, secretTree: &receiver, senderDataSecret: f.senderDataSecret,
                                  suite: f.suite, signaturePublicKey: { _ in f.publicKey })
        }
    }

    func test_senderRules_onEncrypt() throws {
        let f = try FramingFixture()
        var tree = try f.tree()
        assertThrows(FramingError.senderNotMember) {
            try PrivateMessage.protect(
                f.framed(FramingFixture.proposal, sender: .external(senderIndex: 0)), signingKey: f.signingKey,
                context: f.context, secretTree: &tree, senderDataSecret: f.senderDataSecret, suite: f.suite)
        }
        assertThrows(FramingError.missingConfirmationTag) {
            try PrivateMessage.protect(
                f.framed(FramingFixture.commit), signingKey: f.signingKey, context: f.context, secretTree: &tree,
                senderDataSecret: f.senderDataSecret, suite: f.suite)
        }
        let publicSigned = try AuthenticatedContent.signed(
            wireFormat: .publicMessage, content: f.framed(FramingFixture.proposal), signingKey: f.signingKey,
            context: f.context, suite: f.suite)
        assertThrows(FramingError.wrongWireFormat) {
            try PrivateMessage.encrypt(publicSigned, secretTree: &tree, senderDataSecret: f.senderDataSecret, suite: f.suite)
        }
        let signed = try AuthenticatedContent.signed(
            wireFormat: .privateMessage, content: f.framed(FramingFixture.proposal), signingKey: f.signingKey,
            context: f.context, suite: f.suite)
        assertThrows(FramingError.schedule(.invalidReuseGuard)) {
            try PrivateMessage.encrypt(signed, secretTree: &tree, senderDataSecret: f.senderDataSecret, suite: f.suite, reuseGuard: [1])
        }
    }

    func test_reuseGuard_changesTheNonce() throws {
        let f = try FramingFixture()
        let signed = try AuthenticatedContent.signed(
            wireFormat: .privateMessage, content: f.framed(FramingFixture.application), signingKey: f.signingKey,
            context: f.context, suite: f.suite)
        // Same key and generation, different guards: different ciphertexts; same guard: identical.
        var a = try f.tree(), b = try f.tree(), c = try f.tree()
        let one = try PrivateMessage.encrypt(signed, secretTree: &a, senderDataSecret: f.senderDataSecret, suite: f.suite, reuseGuard: [0, 0, 0, 0])
        let two = try PrivateMessage.encrypt(signed, secretTree: &b, senderDataSecret: f.senderDataSecret, suite: f.suite, reuseGuard: [0, 0, 0, 1])
        let three = try PrivateMessage.encrypt(signed, secretTree: &c, senderDataSecret: f.senderDataSecret, suite: f.suite, reuseGuard: [0, 0, 0, 1])
        XCTAssertNotEqual(one.ciphertext, two.ciphertext)
        XCTAssertEqual(two.ciphertext, three.ciphertext)
        var receiver = try f.tree()
        XCTAssertEqual(try unprotect(f, two, tree: &receiver).content.content, FramingFixture.application)
    }
}
