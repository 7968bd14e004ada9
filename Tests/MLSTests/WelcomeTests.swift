import Foundation
import MLS
import MLSVectors
import Primitives
import XCTest

/// Making and joining from a Welcome, GroupInfo signatures and confirmation tags (RFC 9420 §12.4.3).
final class WelcomeTests: XCTestCase {
    /// A committer's view: a signed GroupInfo for a new epoch and the secrets behind it, addressed
    /// to a KeyPackage from welcome.json whose init private key we have.
    struct Sender {
        let suite: CipherSuite
        let keyPackage: KeyPackage
        let initPrivateKey: [UInt8]
        let signingKey: SignaturePrivateKey
        let groupSecrets: GroupSecrets
        let epochSecrets: EpochSecrets
        let groupInfo: GroupInfo

        init(vectorIndex: Int, psks: [(id: PreSharedKeyID, psk: [UInt8])] = [], confirmationTag: [UInt8]? = nil) throws {
            let testCase = try WelcomeTests.vectorCases()[vectorIndex]
            guard case .keyPackage(let keyPackage) = try MLSMessage(decoding: try VectorJSON.hex(testCase, "key_package")).body,
                  let suite = CipherSuite(rawValue: keyPackage.cipherSuite) else { throw VectorMismatch("no KeyPackage") }
            self.suite = suite
            self.keyPackage = keyPackage
            initPrivateKey = try VectorJSON.hex(testCase, "init_priv")
            signingKey = try suite.signatureScheme.generatePrivateKey()
            let context = GroupContext(
                cipherSuite: suite.rawValue, groupID: Array("welcome test".utf8), epoch: 3,
                treeHash: SecureRandom.bytes(suite.nh), confirmedTranscriptHash: SecureRandom.bytes(suite.nh))
            groupSecrets = GroupSecrets(joinerSecret: SecureRandom.bytes(suite.nh), psks: psks.map(\.id))
            epochSecrets = try EpochSecrets(
                suite: suite, joinerSecret: groupSecrets.joinerSecret,
                pskSecret: try PSKSecret.compute(suite: suite, namedPSKs: psks), groupContext: context.encoded())
            let tag = try confirmationTag ?? ConfirmationTag.compute(
                suite: suite, confirmationKey: epochSecrets.confirmationKey, confirmedTranscriptHash: context.confirmedTranscriptHash)
            var groupInfo = GroupInfo(groupContext: context, confirmationTag: tag, signer: 0)
            try groupInfo.sign(with: signingKey, suite: suite)
            self.groupInfo = groupInfo
        }

        var signerPublicKey: [UInt8] { signingKey.publicKey.bytes }

        func welcome() throws -> Welcome {
            try Welcome.encrypt(
                groupInfo: groupInfo, welcomeSecret: epochSecrets.welcomeSecret,
                recipients: [Welcome.Recipient(keyPackage: keyPackage, groupSecrets: groupSecrets)], suite: suite)
        }
    }

    static func vectorCases() throws -> [[String: Any]] {
        let data = try Data(contentsOf: CodecFixtures.vectorDirectory.appendingPathComponent("welcome.json"))
        guard let cases = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw VectorMismatch("welcome.json is not an array of objects")
        }
        return cases
    }

    func test_vectors_allPass() throws {
        let file = try XCTUnwrap(VectorCatalog.file(named: "welcome"))
        let outcomes = try file.run(contentsOf: CodecFixtures.vectorDirectory.appendingPathComponent("welcome.json"))
        XCTAssertEqual(outcomes.count, 7)
        XCTAssertEqual(outcomes.compactMap(\.failure), [])
    }

    func test_vectors_failWithAnotherSignerOrInitKey() throws {
        let testCase = try Self.vectorCases()[0]
        for field in ["signer_pub", "init_priv"] {
            var altered = testCase
            var bytes = try VectorJSON.hex(altered, field)
            bytes[bytes.count - 1] ^= 1
            altered[field] = bytes.hexString
            XCTAssertThrowsError(try WelcomeVectors.check(altered), field)
        }
    }

    func test_roundTrip_everySuite_joinerGetsTheSendersEpoch() throws {
        for index in 0..<7 {
            let sender = try Sender(vectorIndex: index)
            let wire = try MLSMessage(decoding: MLSMessage(body: .welcome(try sender.welcome())).encoded())
            guard case .welcome(let welcome) = wire.body else { return XCTFail("not a Welcome") }
            let decrypted = try welcome.decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey)
            XCTAssertEqual(decrypted.groupInfo, sender.groupInfo)
            XCTAssertEqual(decrypted.groupSecrets, sender.groupSecrets)
            XCTAssertEqual(decrypted.keyPackageRef, sender.suite.makeKeyPackageRef(sender.keyPackage.encoded()))
            let secrets = try decrypted.verify(signerPublicKey: sender.signerPublicKey)
            XCTAssertEqual(secrets.epochAuthenticator, sender.epochSecrets.epochAuthenticator, "\(sender.suite)")
            XCTAssertEqual(secrets.encryptionSecret, sender.epochSecrets.encryptionSecret)
            XCTAssertEqual(
                decrypted.transcriptHashes.interim,
                TranscriptHashes.interim(
                    suite: sender.suite, confirmed: sender.groupInfo.groupContext.confirmedTranscriptHash,
                    confirmationTag: sender.groupInfo.confirmationTag))
        }
    }

    func test_welcomeForAnotherKeyPackage_hasNoSecretsForUs() throws {
        let sender = try Sender(vectorIndex: 0)
        let welcome = try sender.welcome()
        var someoneElse = sender.keyPackage
        someoneElse.signature[0] ^= 1
        assertThrows(WelcomeError.noSecretsForKeyPackage) {
            try welcome.decrypt(keyPackage: someoneElse, initPrivateKey: sender.initPrivateKey)
        }
        var stripped = welcome
        stripped.secrets[0].newMember = SecureRandom.bytes(sender.suite.nh)
        assertThrows(WelcomeError.noSecretsForKeyPackage) {
            try stripped.decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey)
        }
    }

    func test_wrongInitKeyOrTamperedGroupInfo_failsGroupSecrets() throws {
        let sender = try Sender(vectorIndex: 0)
        let welcome = try sender.welcome()
        let otherKey = try sender.suite.generateHPKEKeyPair().privateKey
        assertThrows(WelcomeError.groupSecretsDecryptionFailed) {
            try welcome.decrypt(keyPackage: sender.keyPackage, initPrivateKey: otherKey)
        }
        // The encrypted GroupInfo is the HPKE context of the GroupSecrets, so tampering shows there first.
        var tampered = welcome
        tampered.encryptedGroupInfo[0] ^= 1
        assertThrows(WelcomeError.groupSecretsDecryptionFailed) {
            try tampered.decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey)
        }
    }

    func test_groupInfoUnderAnotherWelcomeSecret_failsGroupInfoDecryption() throws {
        let sender = try Sender(vectorIndex: 1)
        let welcome = try sender.welcome()
        let groupSecrets = try welcome.decryptGroupSecrets(
            keyPackageRef: sender.suite.makeKeyPackageRef(sender.keyPackage.encoded()), initPrivateKey: sender.initPrivateKey,
            suite: sender.suite)
        XCTAssertNoThrow(try welcome.decryptGroupInfo(joinerSecret: groupSecrets.joinerSecret, pskSecret: nil, suite: sender.suite))
        assertThrows(WelcomeError.groupInfoDecryptionFailed) {
            try welcome.decryptGroupInfo(
                joinerSecret: groupSecrets.joinerSecret, pskSecret: SecureRandom.bytes(sender.suite.nh), suite: sender.suite)
        }
    }

    func test_psks_mustBeKnownAndRight() throws {
        let id = PreSharedKeyID(kind: .external(pskID: Array("psk-1".utf8)), pskNonce: SecureRandom.bytes(32))
        let secret = SecureRandom.bytes(32)
        let sender = try Sender(vectorIndex: 2, psks: [(id, secret)])
        let welcome = try sender.welcome()
        assertThrows(WelcomeError.missingPSK(id)) {
            try welcome.decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey)
        }
        assertThrows(WelcomeError.groupInfoDecryptionFailed) {
            try welcome.decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey, psk: { _ in [UInt8](repeating: 7, count: 32) })
        }
        let decrypted = try welcome.decrypt(
            keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey, psk: { $0 == id ? secret : nil })
        XCTAssertEqual(try decrypted.verify(signerPublicKey: sender.signerPublicKey).epochAuthenticator,
                       sender.epochSecrets.epochAuthenticator)
    }

    func test_badGroupInfoSignature_isRefused() throws {
        let sender = try Sender(vectorIndex: 3)
        let decrypted = try sender.welcome().decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey)
        let other = try sender.suite.signatureScheme.generatePrivateKey().publicKey.bytes
        assertThrows(WelcomeError.invalidGroupInfoSignature) { try decrypted.verify(signerPublicKey: other) }

        // A GroupInfo changed after signing, re-encrypted by someone holding the welcome secret.
        var altered = sender.groupInfo
        altered.signer = 1
        let forged = try Welcome.encrypt(
            groupInfo: altered, welcomeSecret: sender.epochSecrets.welcomeSecret,
            recipients: [Welcome.Recipient(keyPackage: sender.keyPackage, groupSecrets: sender.groupSecrets)], suite: sender.suite)
        let opened = try forged.decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey)
        assertThrows(WelcomeError.invalidGroupInfoSignature) { try opened.verify(signerPublicKey: sender.signerPublicKey) }
        assertThrows(WelcomeError.invalidGroupInfoSignature) {
            try altered.verifySignature(publicKey: sender.signerPublicKey, suite: sender.suite)
        }
    }

    func test_wrongConfirmationTag_isRefused() throws {
        let sender = try Sender(vectorIndex: 4, confirmationTag: [UInt8](repeating: 0xAA, count: 64))
        let decrypted = try sender.welcome().decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey)
        assertThrows(WelcomeError.invalidConfirmationTag) { try decrypted.verify(signerPublicKey: sender.signerPublicKey) }
        assertThrows(WelcomeError.invalidConfirmationTag) {
            try sender.groupInfo.verifyConfirmationTag(confirmationKey: sender.epochSecrets.confirmationKey, suite: sender.suite)
        }
    }

    func test_cipherSuiteMismatches() throws {
        let sender = try Sender(vectorIndex: 0)
        var welcome = try sender.welcome()
        welcome.cipherSuite = 3
        assertThrows(WelcomeError.cipherSuiteMismatch) {
            try welcome.decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey)
        }
        welcome.cipherSuite = 0x9999
        assertThrows(WelcomeError.unsupportedCipherSuite(0x9999)) {
            try welcome.decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey)
        }
        let other = try Sender(vectorIndex: 1)
        assertThrows(WelcomeError.cipherSuiteMismatch) {
            try Welcome.encrypt(
                groupInfo: sender.groupInfo, welcomeSecret: sender.epochSecrets.welcomeSecret,
                recipients: [Welcome.Recipient(keyPackage: other.keyPackage, groupSecrets: sender.groupSecrets)], suite: sender.suite)
        }
        assertThrows(WelcomeError.cipherSuiteMismatch) {
            try Welcome.encrypt(groupInfo: sender.groupInfo, welcomeSecret: sender.epochSecrets.welcomeSecret, recipients: [], suite: other.suite)
        }
    }

    func test_malformedGroupSecrets_isTyped() throws {
        let sender = try Sender(vectorIndex: 0)
        var welcome = try sender.welcome()
        // Valid HPKE around bytes that are not GroupSecrets (a truncated encoding).
        let garbage = Array(sender.groupSecrets.encoded().dropLast())
        let sealed = try sender.suite.encryptWithLabel(
            publicKey: sender.keyPackage.initKey, label: "Welcome", context: welcome.encryptedGroupInfo, plaintext: garbage)
        welcome.secrets[0].encryptedGroupSecrets = HPKECiphertext(kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext)
        XCTAssertThrowsError(try welcome.decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey)) { error in
            guard case WelcomeError.malformedGroupSecrets = error else { return XCTFail("got \(error)") }
        }
    }

    func test_malformedGroupInfo_isTyped() throws {
        let sender = try Sender(vectorIndex: 0)
        let (key, nonce) = try KeySchedule.welcomeKeyAndNonce(suite: sender.suite, welcomeSecret: sender.epochSecrets.welcomeSecret)
        let full = sender.groupInfo.encoded()
        for plaintext in [Array(full.dropLast()), full + [0], [0x00, 0x01, 0x00, 0x01, 0xBF, 0xFF, 0xFF, 0xFF]] {
            let encryptedGroupInfo = try sender.suite.seal(key: key, nonce: nonce, aad: [], plaintext: plaintext)
            let secrets = try Welcome.encryptGroupSecrets(
                sender.groupSecrets, to: sender.keyPackage, encryptedGroupInfo: encryptedGroupInfo, suite: sender.suite)
            let welcome = Welcome(cipherSuite: sender.suite.rawValue, secrets: [secrets], encryptedGroupInfo: encryptedGroupInfo)
            XCTAssertThrowsError(try welcome.decrypt(keyPackage: sender.keyPackage, initPrivateKey: sender.initPrivateKey)) { error in
                guard case WelcomeError.malformedGroupInfo = error else { return XCTFail("got \(error)") }
            }
        }
    }

    func test_severalRecipients_eachFindsItsOwnSecrets() throws {
        let first = try Sender(vectorIndex: 0)
        let second = try Sender(vectorIndex: 2)
        // Suites 1 and 3 share the X25519 KEM; the second KeyPackage is re-labelled to suite 1 for this test.
        var secondKeyPackage = second.keyPackage
        secondKeyPackage.cipherSuite = first.suite.rawValue
        let welcome = try Welcome.encrypt(
            groupInfo: first.groupInfo, welcomeSecret: first.epochSecrets.welcomeSecret,
            recipients: [Welcome.Recipient(keyPackage: first.keyPackage, groupSecrets: first.groupSecrets),
                         Welcome.Recipient(keyPackage: secondKeyPackage, groupSecrets: first.groupSecrets)],
            suite: first.suite)
        XCTAssertEqual(welcome.secrets.count, 2)
        for (keyPackage, initKey) in [(first.keyPackage, first.initPrivateKey), (secondKeyPackage, second.initPrivateKey)] {
            let decrypted = try welcome.decrypt(keyPackage: keyPackage, initPrivateKey: initKey)
            XCTAssertNoThrow(try decrypted.verify(signerPublicKey: first.signerPublicKey))
        }
    }
}
