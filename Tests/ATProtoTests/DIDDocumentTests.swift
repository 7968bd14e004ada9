import Basics
import XCTest
import Primitives
@testable import ATProto

final class DIDDocumentTests: XCTestCase {
    private let did = try! DID("did:plc:ewvi7nxzyoun6zhxrhs64oiz")

    private func key(_ json: String) throws -> AtprotoSigningKey {
        try DIDDocument.parse(Array(json.utf8)).atprotoSigningKey(for: did)
    }

    private func assertKeyError(_ json: String, _ expected: DIDDocument.ParseError, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try key(json), file: file, line: line) {
            XCTAssertEqual($0 as? DIDDocument.ParseError, expected, file: file, line: line)
        }
    }

    func testMultikeyWithFullAndRelativeIDs() throws {
        let signing = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let multibase = Multikey.encode(publicKey: signing.publicKey)
        for id in ["#atproto", did.rawValue + "#atproto"] {
            let method = "{\"id\":\"\(id)\",\"type\":\"Multikey\",\"controller\":\"\(did)\",\"publicKeyMultibase\":\"\(multibase)\"}"
            let json = Fixtures.didDocument(id: did.rawValue, verificationMethods: [method])
            XCTAssertEqual(try key(json).publicKey.uncompressed, signing.publicKey.uncompressed)
        }
    }

    func testLegacyTypes() throws {
        let k256 = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let p256 = try ECDSAPrivateKey.generate(curve: .p256)
        let legacyK = Fixtures.didDocument(id: did.rawValue, verificationMethods: [
            Fixtures.verificationMethod(did: did.rawValue, type: "EcdsaSecp256k1VerificationKey2019",
                                        multibase: "z" + Base58.encode(k256.publicKey.uncompressed)),
        ])
        XCTAssertEqual(try key(legacyK).publicKey.uncompressed, k256.publicKey.uncompressed)
        let legacyP = Fixtures.didDocument(id: did.rawValue, verificationMethods: [
            Fixtures.verificationMethod(did: did.rawValue, type: "EcdsaSecp256r1VerificationKey2019",
                                        multibase: "z" + Base58.encode(p256.publicKey.compressed)),
        ])
        XCTAssertEqual(try key(legacyP).curve, .p256)
    }

    func testPicksAtprotoKeyAmongOthers() throws {
        let other = try ECDSAPrivateKey.generate(curve: .p256)
        let signing = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let json = Fixtures.didDocument(id: did.rawValue, verificationMethods: [
            "\"not an object\"",
            "{\"id\":\"#atproto\"}",
            Fixtures.verificationMethod(did: did.rawValue, id: "#other", multibase: Multikey.encode(publicKey: other.publicKey)),
            Fixtures.verificationMethod(did: did.rawValue, multibase: Multikey.encode(publicKey: signing.publicKey)),
        ])
        XCTAssertEqual(try key(json).publicKey.uncompressed, signing.publicKey.uncompressed)
    }

    func testRejections() throws {
        let signing = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let multibase = Multikey.encode(publicKey: signing.publicKey)
        assertKeyError(Fixtures.didDocument(id: "did:plc:aaaaaaaaaaaaaaaaaaaaaaaa", verificationMethods: [
            Fixtures.verificationMethod(did: did.rawValue, multibase: multibase),
        ]), .idMismatch)
        assertKeyError(Fixtures.didDocument(id: did.rawValue, verificationMethods: []), .noAtprotoKey)
        assertKeyError(Fixtures.didDocument(id: did.rawValue, verificationMethods: [
            Fixtures.verificationMethod(did: did.rawValue, id: "#atproto_label", multibase: multibase),
        ]), .noAtprotoKey)
        assertKeyError(Fixtures.didDocument(id: did.rawValue, verificationMethods: [
            Fixtures.verificationMethod(did: did.rawValue, controller: "did:plc:aaaaaaaaaaaaaaaaaaaaaaaa", multibase: multibase),
        ]), .noAtprotoKey)
        assertKeyError(Fixtures.didDocument(id: did.rawValue, verificationMethods: [
            Fixtures.verificationMethod(did: did.rawValue, type: "Ed25519VerificationKey2020", multibase: multibase),
        ]), .unsupportedKeyType("Ed25519VerificationKey2020"))
        assertKeyError(Fixtures.didDocument(id: did.rawValue, verificationMethods: [
            Fixtures.verificationMethod(did: did.rawValue, multibase: "z" + Base58.encode([0xE7, 0x01] + signing.publicKey.compressed.dropLast())),
        ]), .badKey(.badKeyLength))
        // A legacy type holding a Multikey-prefixed value is not a raw key.
        assertKeyError(Fixtures.didDocument(id: did.rawValue, verificationMethods: [
            Fixtures.verificationMethod(did: did.rawValue, type: "EcdsaSecp256k1VerificationKey2019", multibase: multibase),
        ]), .badKey(.badKeyLength))
    }

    func testMalformedTruncatedAndOversizedDocuments() throws {
        let signing = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let full = Fixtures.multikeyDocument(did: did, key: signing)
        XCTAssertNoThrow(try key(full))
        for cut in stride(from: 0, to: full.utf8.count - 1, by: 7) {
            XCTAssertThrowsError(try DIDDocument.parse(Array(full.utf8.prefix(cut))), "cut at \(cut)")
        }
        for junk in ["", "null", "[]", "\"did\"", "{\"id\":5}", "{", "{\"id\":\"x\",}", "\u{FEFF}{}"] {
            XCTAssertThrowsError(try DIDDocument.parse(Array(junk.utf8)), junk)
        }
        XCTAssertThrowsError(try DIDDocument.parse(Array(String(repeating: "[", count: 100_000).utf8)))
        // Large but well-formed: many unrelated verification methods still resolve.
        let filler = (0..<2000).map { Fixtures.verificationMethod(did: did.rawValue, id: "#k\($0)", multibase: "z1") }
        let big = Fixtures.didDocument(id: did.rawValue, verificationMethods: filler + [
            Fixtures.verificationMethod(did: did.rawValue, multibase: Multikey.encode(publicKey: signing.publicKey)),
        ])
        XCTAssertEqual(try key(big).publicKey.uncompressed, signing.publicKey.uncompressed)
    }
}
