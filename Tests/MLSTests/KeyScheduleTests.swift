@testable import MLS
import Primitives
import XCTest

final class KeyScheduleTests: XCTestCase {
    func test_joinerPath_matchesFullSchedule_andWelcomeHelpersAgree() throws {
        for suite in CipherSuite.allCases {
            let context = Array("group context".utf8)
            let full = try EpochSecrets(
                suite: suite, initSecret: [UInt8](repeating: 1, count: suite.nh),
                commitSecret: [UInt8](repeating: 2, count: suite.nh), pskSecret: nil, groupContext: context)
            let joined = try EpochSecrets(suite: suite, joinerSecret: full.joinerSecret, pskSecret: nil, groupContext: context)
            XCTAssertEqual(joined.epochAuthenticator, full.epochAuthenticator)
            XCTAssertEqual(joined.initSecret, full.initSecret)
            XCTAssertEqual(try KeySchedule.welcomeSecret(suite: suite, joinerSecret: full.joinerSecret, pskSecret: nil), full.welcomeSecret)
            let welcome = try KeySchedule.welcomeKeyAndNonce(suite: suite, welcomeSecret: full.welcomeSecret)
            XCTAssertEqual(welcome.key.count, suite.nk)
            XCTAssertEqual(welcome.nonce.count, suite.nn)
            // A PSK or a different GroupContext changes everything after the joiner secret.
            let withPSK = try EpochSecrets(suite: suite, joinerSecret: full.joinerSecret,
                                           pskSecret: [UInt8](repeating: 3, count: suite.nh), groupContext: context)
            XCTAssertNotEqual(withPSK.epochSecret, full.epochSecret)
            let otherContext = try EpochSecrets(suite: suite, joinerSecret: full.joinerSecret, pskSecret: nil, groupContext: context + [0])
            XCTAssertNotEqual(otherContext.encryptionSecret, full.encryptionSecret)
            XCTAssertEqual(otherContext.welcomeSecret, full.welcomeSecret, "welcome_secret does not depend on the GroupContext")
        }
    }

    func test_absentCommitAndPSKSecrets_areTheZeroVector() throws {
        let suite = CipherSuite.mls256DHKEMP384AES256GCMSHA384P384
        let zero = [UInt8](repeating: 0, count: suite.nh)
        let a = try EpochSecrets(suite: suite, initSecret: zero, commitSecret: nil, pskSecret: nil, groupContext: [1])
        let b = try EpochSecrets(suite: suite, initSecret: zero, commitSecret: zero, pskSecret: zero, groupContext: [1])
        XCTAssertEqual(a.epochAuthenticator, b.epochAuthenticator)
        XCTAssertEqual(try PSKSecret.compute(suite: suite, psks: []), zero)
    }

    func test_exporter_dependsOnLabelContextAndLength() throws {
        let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
        let secrets = try EpochSecrets(suite: suite, initSecret: [UInt8](repeating: 0, count: 32), commitSecret: nil,
                                       pskSecret: nil, groupContext: [])
        let base = try secrets.exporter(label: "label", context: [1], length: 32)
        XCTAssertEqual(try secrets.exporter(label: Array("label".utf8), context: [1], length: 32), base)
        XCTAssertNotEqual(try secrets.exporter(label: "label2", context: [1], length: 32), base)
        XCTAssertNotEqual(try secrets.exporter(label: "label", context: [2], length: 32), base)
        XCTAssertEqual(try secrets.exporter(label: "label", context: [1], length: 16).count, 16)
        XCTAssertThrowsError(try secrets.exporter(label: "label", context: [1], length: 255 * 32 + 1))
    }

    func test_externalInit_bothSidesDeriveTheSameInitSecret() throws {
        for suite in CipherSuite.allCases {
            let secrets = try EpochSecrets(suite: suite, initSecret: [UInt8](repeating: 5, count: suite.nh), commitSecret: nil,
                                           pskSecret: nil, groupContext: [7])
            let external = try secrets.externalKeyPair()
            let joiner = try KeySchedule.externalInit(suite: suite, externalPublicKey: external.publicKey)
            let group = try KeySchedule.externalInitSecret(suite: suite, kemOutput: joiner.kemOutput, externalPrivateKey: external.privateKey)
            XCTAssertEqual(joiner.initSecret, group, "\(suite)")
            XCTAssertEqual(group.count, suite.nh)
        }
    }

    func test_epochSecrets_doNotPrintKeyMaterial() throws {
        let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
        let secrets = try EpochSecrets(suite: suite, initSecret: [UInt8](repeating: 0xab, count: 32), commitSecret: nil,
                                       pskSecret: nil, groupContext: [])
        var dumped = ""
        dump(secrets, to: &dumped)
        let printed = "\(secrets) \(String(reflecting: secrets)) \(dumped)"
        XCTAssertFalse(printed.contains(secrets.encryptionSecret.description), printed)
        XCTAssertFalse(printed.contains("encryptionSecret"), printed)
        XCTAssertTrue(printed.contains("EpochSecrets"))
    }

    func test_pskSecret_orderMatters() throws {
        let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
        let a = PSKSecret.Input(encodedID: [1, 1, 0xaa], psk: [1])
        let b = PSKSecret.Input(encodedID: [1, 1, 0xbb], psk: [2])
        XCTAssertNotEqual(try PSKSecret.compute(suite: suite, psks: [a, b]), try PSKSecret.compute(suite: suite, psks: [b, a]))
        XCTAssertNotEqual(try PSKSecret.compute(suite: suite, psks: [a]), [UInt8](repeating: 0, count: 32))
    }
}
