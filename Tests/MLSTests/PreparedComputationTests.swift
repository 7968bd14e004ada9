@testable import MLS
import Primitives
import XCTest

/// Work done once and reused (prepared HPKE info, batched tree rehash, parsed signature keys) must
/// give exactly what doing it each time gives.
final class PreparedComputationTests: XCTestCase {
    func test_preparedInfo_keySchedule_equalsPerCallKeySchedule() throws {
        for suite in CipherSuite.allCases {
            let info = Array(repeating: UInt8(0x5a), count: 3000)
            let sharedSecret = SecureRandom.bytes(suite.hpke.kdf.outputSize)
            let direct = try suite.hpke.keySchedule(sharedSecret: sharedSecret, info: info)
            let prepared = try suite.hpke.keySchedule(sharedSecret: sharedSecret, prepared: suite.hpke.prepare(info: info))
            XCTAssertEqual(prepared.key, direct.key, "\(suite)")
            XCTAssertEqual(prepared.baseNonce, direct.baseNonce, "\(suite)")
            XCTAssertEqual(prepared.exporterSecret, direct.exporterSecret, "\(suite)")
            let other = try suite.hpke.keySchedule(sharedSecret: sharedSecret, prepared: suite.hpke.prepare(info: info + [0]))
            XCTAssertNotEqual(other.key, direct.key, "\(suite)")
        }
    }

    func test_encryptWithLabel_prepared_opensWithDecryptWithLabel_andOnlyWithItsContext() throws {
        for suite in CipherSuite.allCases {
            let context = SecureRandom.bytes(500)
            let prepared = try suite.prepareEncryptContext(label: "Welcome", context: context)
            for _ in 0..<3 {
                let recipient = try suite.generateHPKEKeyPair()
                let plaintext = SecureRandom.bytes(40)
                let sealed = try suite.encryptWithLabel(publicKey: recipient.publicKey, prepared: prepared, plaintext: plaintext)
                XCTAssertEqual(try suite.decryptWithLabel(
                    privateKey: recipient.privateKey, label: "Welcome", context: context,
                    kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext), plaintext, "\(suite)")
                XCTAssertThrowsError(try suite.decryptWithLabel(
                    privateKey: recipient.privateKey, label: "UpdatePathNode", context: context,
                    kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext), "\(suite)")
                XCTAssertThrowsError(try suite.decryptWithLabel(
                    privateKey: recipient.privateKey, label: "Welcome", context: context.dropLast(),
                    kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext), "\(suite)")
            }
        }
    }

    func test_addsRehashedOnce_matchTreeAddedOneByOne_andReimportedTree() throws {
        // Five members with a committed path, so parents are non-blank and get unmerged leaves; nine
        // more fill the eight-leaf tree and force an extension to sixteen.
        let base = try TreeFixtures.group(size: 5).tree
        let joiners = try (0..<9).map { try TreeFixtures.member("joiner-\($0)").leafNode }
        var oneByOne = base
        for leaf in joiners { oneByOne.add(leaf) }
        var batched = base
        let indices = joiners.map { batched.addWithoutRehash($0) }
        batched.rehash(changed: indices.map { 2 * $0 })

        XCTAssertEqual(batched, oneByOne)
        XCTAssertEqual(batched.treeHash, oneByOne.treeHash)
        for x in 0..<batched.nodeWidth { XCTAssertEqual(batched.treeHash(of: x), oneByOne.treeHash(of: x), "node \(x)") }
        let reimported = try PublicRatchetTree(suite: batched.suite, tree: batched.ratchetTree)
        XCTAssertEqual(batched.treeHash, reimported.treeHash)
        let rootParent = try XCTUnwrap(batched.parentNode(at: 7), "the committer's path covers node 7")
        XCTAssertEqual(rootParent.unmergedLeaves, [5, 6, 7])
    }

    func test_signatureKeyCache_givesParsedKey_keepsNoInvalidKey_andStaysBounded() throws {
        let cache = SignaturePublicKeyCache(capacity: 2)
        let scheme = SignatureScheme.ecdsaSecp256r1SHA256
        let signers = try (0..<3).map { _ in try scheme.generatePrivateKey() }
        let message = Array("framed content".utf8)
        let signature = try signers[0].signature(for: message)

        let key = try cache.key(scheme: scheme, bytes: signers[0].publicKey.bytes)
        XCTAssertEqual(key.bytes, signers[0].publicKey.bytes)
        XCTAssertTrue(key.isValidSignature(signature, for: message))
        let again = try cache.key(scheme: scheme, bytes: signers[0].publicKey.bytes)
        XCTAssertTrue(again.isValidSignature(signature, for: message))
        XCTAssertFalse(again.isValidSignature(signature, for: message + [0]))
        XCTAssertEqual(cache.count, 1)

        // Truncated, and a point off the curve: refused every time, never kept.
        XCTAssertThrowsError(try cache.key(scheme: scheme, bytes: Array(signers[1].publicKey.bytes.dropLast())))
        var offCurve = signers[1].publicKey.bytes
        offCurve[offCurve.count - 1] ^= 1
        XCTAssertThrowsError(try cache.key(scheme: scheme, bytes: offCurve))
        XCTAssertThrowsError(try cache.key(scheme: scheme, bytes: offCurve))
        XCTAssertEqual(cache.count, 1)

        // The same bytes under another scheme are another entry (and here invalid).
        XCTAssertThrowsError(try cache.key(scheme: .ecdsaSecp384r1SHA384, bytes: signers[0].publicKey.bytes))
        _ = try cache.key(scheme: scheme, bytes: signers[1].publicKey.bytes)
        XCTAssertEqual(cache.count, 2)
        let third = try cache.key(scheme: scheme, bytes: signers[2].publicKey.bytes)
        XCTAssertEqual(third.bytes, signers[2].publicKey.bytes)
        XCTAssertEqual(cache.count, 1, "emptied when full")

        // EdDSA keys bypass it: parsed (size-checked) each time.
        let edSigner = try SignatureScheme.ed25519.generatePrivateKey()
        XCTAssertEqual(try cache.key(scheme: .ed25519, bytes: edSigner.publicKey.bytes).bytes, edSigner.publicKey.bytes)
        XCTAssertThrowsError(try cache.key(scheme: .ed25519, bytes: [1, 2, 3]))
        XCTAssertEqual(cache.count, 1)
    }

    func test_messageSignature_withCachedKey_stillRejectsForgery() throws {
        let suite = CipherSuite(rawValue: 2)!
        let signer = try suite.signatureScheme.generatePrivateKey()
        let other = try suite.signatureScheme.generatePrivateKey()
        let context = GroupContext(cipherSuite: suite.rawValue, groupID: [1], epoch: 3, treeHash: [2], confirmedTranscriptHash: [3])
        let content = FramedContent(groupID: [1], epoch: 3, sender: .member(leafIndex: 0), authenticatedData: [],
                                    content: .application(Array("hello".utf8)))
        let signed = try AuthenticatedContent.signed(
            wireFormat: .privateMessage, content: content, signingKey: signer, context: context, suite: suite)
        for _ in 0..<2 {
            XCTAssertNoThrow(try signed.verifySignature(publicKey: signer.publicKey.bytes, context: context, suite: suite))
            XCTAssertThrowsError(try signed.verifySignature(publicKey: other.publicKey.bytes, context: context, suite: suite))
            var tampered = signed
            tampered.auth.signature[tampered.auth.signature.count / 2] ^= 1
            XCTAssertThrowsError(try tampered.verifySignature(publicKey: signer.publicKey.bytes, context: context, suite: suite))
        }
    }
}
