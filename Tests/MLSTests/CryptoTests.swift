@testable import MLS
import Primitives
import XCTest

final class CryptoTests: XCTestCase {
    func test_cipherSuite_onlySevenRegisteredValues() {
        XCTAssertEqual(CipherSuite.allCases.map(\.rawValue), [1, 2, 3, 4, 5, 6, 7])
        XCTAssertNil(CipherSuite(rawValue: 0))
        XCTAssertNil(CipherSuite(rawValue: 8))
        XCTAssertNil(CipherSuite(id: 0xffff))
        let suite = CipherSuite.mls256DHKEMP521AES256GCMSHA512P521
        XCTAssertEqual(suite.nh, 64)
        XCTAssertEqual(suite.nk, 32)
        XCTAssertEqual(suite.nn, 12)
        XCTAssertEqual(suite.kem, .dhkemP521)
        XCTAssertEqual(suite.signatureScheme, .ecdsaSecp521r1SHA512)
        XCTAssertEqual(CipherSuite(id: 3), .mls128DHKEMX25519ChaCha20Poly1305SHA256Ed25519)
    }

    func test_signWithLabel_roundTrips_andBindsLabel_forEverySuite() throws {
        for suite in CipherSuite.allCases {
            let key = try suite.signatureScheme.generatePrivateKey()
            let content = Array("content".utf8)
            let signature = try suite.signWithLabel(key, label: "LeafNodeTBS", content: content)
            XCTAssertTrue(suite.verifyWithLabel(key.publicKey, label: "LeafNodeTBS", content: content, signature: signature), "\(suite)")
            XCTAssertTrue(suite.verifyWithLabel(publicKey: key.publicKey.bytes, label: "LeafNodeTBS", content: content,
                                                signature: signature))
            XCTAssertFalse(suite.verifyWithLabel(key.publicKey, label: "GroupInfoTBS", content: content, signature: signature))
            XCTAssertFalse(suite.verifyWithLabel(key.publicKey, label: "LeafNodeTBS", content: content + [0], signature: signature))
            XCTAssertFalse(suite.verifyWithLabel(publicKey: [1, 2, 3], label: "LeafNodeTBS", content: content, signature: signature))
            // Keys round-trip through their MLS encodings.
            let again = try SignaturePrivateKey(scheme: suite.signatureScheme, bytes: key.bytes)
            XCTAssertEqual(again.publicKey.bytes, key.publicKey.bytes)
            XCTAssertThrowsError(try SignaturePrivateKey(scheme: suite.signatureScheme, bytes: []))
        }
        // A key of another scheme is refused.
        let ed = try SignatureScheme.ed25519.generatePrivateKey()
        XCTAssertThrowsError(try CipherSuite.mls128DHKEMP256AES128GCMSHA256P256.signWithLabel(ed, label: "x", content: []))
    }

    func test_ecdsaSignatures_areDER_andCompressedKeysRefused() throws {
        let suite = CipherSuite.mls128DHKEMP256AES128GCMSHA256P256
        let key = try suite.signatureScheme.generatePrivateKey()
        let signature = try suite.signWithLabel(key, label: "x", content: [])
        XCTAssertEqual(signature.first, 0x30, "DER SEQUENCE")
        let compressed = try ECDSAPublicKey(curve: .p256, sec1: key.publicKey.bytes).compressed
        XCTAssertThrowsError(try SignaturePublicKey(scheme: .ecdsaSecp256r1SHA256, bytes: compressed))
    }

    func test_encryptWithLabel_roundTrips_andBindsLabelAndContext() throws {
        for suite in CipherSuite.allCases {
            let pair = try suite.generateHPKEKeyPair()
            let sealed = try suite.encryptWithLabel(publicKey: pair.publicKey, label: "UpdatePathNode", context: [1], plaintext: [9, 9])
            XCTAssertEqual(try suite.decryptWithLabel(privateKey: pair.privateKey, label: "UpdatePathNode", context: [1],
                                                      kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext), [9, 9])
            XCTAssertThrowsError(try suite.decryptWithLabel(privateKey: pair.privateKey, label: "Welcome", context: [1],
                                                            kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext))
            XCTAssertThrowsError(try suite.decryptWithLabel(privateKey: pair.privateKey, label: "UpdatePathNode", context: [2],
                                                            kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext))
        }
    }

    func test_refs_useTheirRFCLabels() {
        let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
        let value: [UInt8] = [1, 2, 3]
        XCTAssertEqual(suite.makeKeyPackageRef(value), suite.refHash(label: "MLS 1.0 KeyPackage Reference", value: value))
        XCTAssertEqual(suite.makeProposalRef(value), suite.refHash(label: "MLS 1.0 Proposal Reference", value: value))
        XCTAssertNotEqual(suite.makeKeyPackageRef(value), suite.makeProposalRef(value))
        XCTAssertEqual(suite.makeKeyPackageRef(value).count, 32)
    }

    func test_expandWithLabel_rejectsOversizedLengths() {
        let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519
        XCTAssertThrowsError(try suite.expandWithLabel(secret: [1], label: "x", context: [], length: 70000))
        XCTAssertThrowsError(try suite.expandWithLabel(secret: [1], label: "x", context: [], length: -1))
    }
}
