@testable import MLS
import Primitives
import XCTest

/// Suite 0x004D (X-Wing KEM, ChaCha20-Poly1305, SHA-256, Ed25519): its parameters, HPKE over
/// X-Wing, and the size checks that let the service validate such groups without ever running
/// ML-KEM (the full lifecycle is in GroupLifecycleTests).
final class XWingSuiteTests: XCTestCase {
    let suite = CipherSuite.mls256XWingChaCha20Poly1305SHA256Ed25519

    func testSuiteParameters() {
        XCTAssertEqual(suite.rawValue, 0x004D)
        XCTAssertEqual(CipherSuite(rawValue: 77), suite)
        XCTAssertEqual(suite.kem, .xwing)
        XCTAssertEqual(suite.hash, .sha256)
        XCTAssertEqual(suite.aead, .chacha20Poly1305)
        XCTAssertEqual(suite.signatureScheme, .ed25519)
        XCTAssertEqual(suite.kem.nPk, 1216)
        XCTAssertEqual(suite.kem.nEnc, 1120)
        XCTAssertEqual(suite.kem.nSk, 32)
        // suite_id = "HPKE" ‖ 0x647a (hpke-rs's X-Wing KEM id) ‖ HKDF-SHA256 ‖ ChaCha20-Poly1305.
        XCTAssertEqual(suite.hpke.suiteID, Array("HPKE".utf8) + [0x64, 0x7A, 0x00, 0x01, 0x00, 0x03])
        XCTAssertFalse(CipherSuite.allCases.contains(suite), "allCases are the RFC's seven suites")
    }

    func testHPKERoundTripAndDeriveKeyPair() throws {
        let pair = try suite.generateHPKEKeyPair()
        XCTAssertEqual(pair.publicKey.count, 1216)
        XCTAssertEqual(pair.privateKey.count, 32)
        let sealed = try suite.encryptWithLabel(publicKey: pair.publicKey, label: "test", context: [1], plaintext: [1, 2, 3])
        XCTAssertEqual(sealed.kemOutput.count, 1120)
        XCTAssertEqual(try suite.decryptWithLabel(privateKey: pair.privateKey, label: "test", context: [1],
                                                  kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext), [1, 2, 3])
        XCTAssertThrowsError(try suite.decryptWithLabel(privateKey: pair.privateKey, label: "other", context: [1],
                                                        kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext))
        var tampered = sealed.kemOutput
        tampered[10] ^= 1
        XCTAssertThrowsError(try suite.decryptWithLabel(privateKey: pair.privateKey, label: "test", context: [1],
                                                        kemOutput: tampered, ciphertext: sealed.ciphertext),
                             "implicit rejection gives another secret, so the AEAD fails")
        XCTAssertThrowsError(try suite.encryptWithLabel(publicKey: Array(pair.publicKey.dropLast()), label: "t", context: [], plaintext: [1]))

        // DeriveKeyPair for node keys: SHAKE256(ikm, 32) as the seed, as OpenMLS 0.8 (hpke-rs) does.
        let ikm = SecureRandom.bytes(32)
        let derived = try suite.deriveKeyPair(ikm)
        XCTAssertEqual(derived.privateKey, SHAKE256.hash(ikm, count: 32))
        XCTAssertEqual(derived.publicKey, try XWing.publicKey(privateKey: derived.privateKey))
        XCTAssertEqual(try suite.deriveKeyPair(ikm).publicKey, derived.publicKey)
    }

    /// A KeyPackage whose init or encryption key is not 1216 bytes is refused before any signature.
    func testKeyPackageKeySizes() throws {
        let bundle = try GroupFixtures.keyPackage("dave", suite: suite)
        XCTAssertNoThrow(try bundle.keyPackage.validate(suite: suite))
        var shortInit = bundle.keyPackage
        shortInit.initKey.removeLast()
        try shortInit.sign(with: bundle.signingKey, suite: suite)
        XCTAssertThrowsError(try shortInit.validate(suite: suite)) { XCTAssertEqual($0 as? KeyPackageError, .invalidKey) }
        var x25519Init = bundle.keyPackage
        x25519Init.initKey = try CipherSuite.mls128DHKEMX25519ChaCha20Poly1305SHA256Ed25519.generateHPKEKeyPair().publicKey
        try x25519Init.sign(with: bundle.signingKey, suite: suite)
        XCTAssertThrowsError(try x25519Init.validate(suite: suite)) { XCTAssertEqual($0 as? KeyPackageError, .invalidKey) }
    }

    private func craft(_ commit: Commit, by member: Group) throws -> PublicMessage {
        let content = FramedContent(groupID: member.groupID, epoch: member.epoch,
                                    sender: .member(leafIndex: member.ownLeaf), content: .commit(commit))
        return try PublicMessage.protect(
            content, confirmationTag: SecureRandom.bytes(32), signingKey: member.signingKey,
            context: member.groupContext, membershipKey: member.epochSecrets.membershipKey, suite: suite)
    }

    /// The PublicGroup (what the service runs) checks UpdatePath key and kem_output sizes, and never
    /// decapsulates: a path whose kem_outputs are random bytes of the right size passes it, and only
    /// the members, who decapsulate, notice.
    func testUpdatePathSizesCheckedWithoutDecapsulation() throws {
        let (alice, bob, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let message = try GroupFixtures.publicMessage(try bob.update().commit)
        guard case .commit(let commit) = message.content.content, let path = commit.path else { return XCTFail("no path") }
        XCTAssertEqual(path.nodes[0].encryptionKey.count, 1216)
        XCTAssertEqual(path.nodes[0].encryptedPathSecret[0].kemOutput.count, 1120)

        var shortOutput = commit
        shortOutput.path!.nodes[0].encryptedPathSecret[0].kemOutput.removeLast()
        XCTAssertThrowsError(try observer.validateAndApply(commit: try craft(shortOutput, by: bob))) { error in
            guard case .tree(.malformedCiphertext) = error as? GroupError else { return XCTFail("\(error)") }
        }
        var shortKey = commit
        shortKey.path!.nodes[0].encryptionKey.removeLast()
        XCTAssertThrowsError(try observer.validateAndApply(commit: try craft(shortKey, by: bob))) { error in
            guard case .tree(.invalidEncryptionKey) = error as? GroupError else { return XCTFail("\(error)") }
        }

        var garbage = commit
        for n in garbage.path!.nodes.indices {
            for c in garbage.path!.nodes[n].encryptedPathSecret.indices {
                garbage.path!.nodes[n].encryptedPathSecret[c].kemOutput = SecureRandom.bytes(1120)
            }
        }
        let forged = try craft(garbage, by: bob)
        XCTAssertNoThrow(try observer.validateAndApply(commit: forged), "validation needs no ML-KEM")
        var receiver = alice
        XCTAssertThrowsError(try receiver.process(forged), "the member cannot open its path secret")
    }

    /// A leaf node must carry a 1216-byte encryption key; the size is checked before its signature.
    func testLeafNodeKeySizeCheckedFirst() throws {
        let (_, _, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        var leaf = try XCTUnwrap(observer.tree.leafNode(at: 1))
        leaf.encryptionKey.removeLast()
        XCTAssertThrowsError(try observer.tree.validateLeafNode(leaf, at: 1, groupID: observer.groupID, source: nil)) {
            XCTAssertEqual($0 as? TreeError, .invalidEncryptionKey(node: 2))
        }
        XCTAssertThrowsError(try observer.tree.validate(groupID: observer.groupID + [0]), "control: a valid tree under another group id")
        XCTAssertNoThrow(try observer.tree.validate(groupID: observer.groupID))
    }
}
