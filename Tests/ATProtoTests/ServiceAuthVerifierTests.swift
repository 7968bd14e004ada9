import XCTest
import Primitives
@testable import ATProto

/// One test per AUTH.md check that a token breaking it fails, plus the good paths.
final class ServiceAuthVerifierTests: XCTestCase {
    private var h: VerifierHarness!

    override func setUpWithError() throws {
        h = try VerifierHarness()
    }

    override func tearDown() {
        h = nil
    }

    // MARK: good tokens

    func testGoodES256KTokenWithBothAudienceForms() throws {
        for audience in [Fixtures.serviceDID, Fixtures.serviceDID + "#atproto_mls"] {
            let token = try ServiceAuthToken.mint(issuer: h.k256DID, audience: audience, lexiconMethod: Fixtures.nsid,
                                                  key: h.k256, issuedAt: h.clock.now)
            XCTAssertEqual(try h.verify("Bearer \(token)"), h.k256DID)
        }
        XCTAssertEqual(h.fetches(h.k256DID), 1, "the key is cached after the first resolution")
    }

    func testGoodES256TokenWithBothAudienceForms() throws {
        for audience in [Fixtures.serviceDID, Fixtures.serviceDID + "#atproto_mls"] {
            let token = try ServiceAuthToken.mint(issuer: h.p256DID, audience: audience, lexiconMethod: Fixtures.nsid,
                                                  key: h.p256, issuedAt: h.clock.now)
            XCTAssertEqual(try h.verify("bearer \(token)"), h.p256DID)
        }
    }

    func testAcceptedHeaderVariants() throws {
        for header in ["{\"alg\":\"ES256K\"}", "{\"alg\":\"ES256K\",\"typ\":\"JWT\",\"kid\":\"#atproto\"}", "{\"typ\":\"jwt\",\"alg\":\"ES256K\"}"] {
            XCTAssertNoThrow(try h.verify("Bearer \(h.token(header: header))"), header)
        }
    }

    // MARK: check 1

    func testMissingHeader() {
        h.assertFails(nil, "AuthenticationRequired")
        h.assertFails("", "AuthenticationRequired")
    }

    func testNotBearer() {
        let token = h.token()
        h.assertFails("Basic \(token)", "AuthenticationRequired")
        h.assertFails("DPoP \(token)", "AuthenticationRequired")
        h.assertFails(token, "AuthenticationRequired")
        h.assertFails("Bearer ", "BadJwt")
        // The scheme in any letter case, and nothing else: not a longer word, not a near miss.
        XCTAssertEqual(try h.verify("BEARER \(h.token())"), h.k256DID)
        XCTAssertEqual(try h.verify("bEaReR \(h.token())"), h.k256DID)
        for header in ["Bearerx \(token)", "Bearer\(token)", "Beare \(token)", "Bear@r \(token)", " Bearer \(token)",
                       "Bearer\t\(token)", "Bearér \(token)"] {
            h.assertFails(header, "AuthenticationRequired")
        }
    }

    func testTokenIsTrimmedAsFoundationTrimsWhitespace() throws {
        // The fast path (printable ASCII at both ends) and every way around it.
        let texts = ["abc.def.ghi", "a", "!~", " abc", "abc ", "\tabc\t", "a b", "  ", "", "\u{A0}abc", "abc\u{3000}",
                     "\u{2009}a\u{202F}", "éa", "aé", "\u{7F}a", "a\u{1F}", "a\n", "\u{85}a", "\u{200B}a"]
        for text in texts {
            let padded = "x" + text + "x"
            let inner = padded.dropFirst().dropLast()
            XCTAssertEqual(ServiceAuthVerifier.trimmingWhitespace(inner), inner.trimmingCharacters(in: .whitespaces), text.debugDescription)
        }
        // Two spaces after the scheme: the token is what follows them, as before.
        XCTAssertEqual(try h.verify("Bearer  \(h.token())"), h.k256DID)
    }

    func testSegmentCount() {
        let parts = h.token().split(separator: ".")
        h.assertFails("Bearer \(parts[0]).\(parts[1])", "BadJwt")
        h.assertFails("Bearer \(parts[0]).\(parts[1]).\(parts[2]).\(parts[2])", "BadJwt")
    }

    func testBadBase64() {
        let parts = h.token().split(separator: ".")
        h.assertFails("Bearer \(parts[0]).\(parts[1])$.\(parts[2])", "BadJwt")
        h.assertFails("Bearer \(parts[0]).\(parts[1]).\(parts[2].dropLast())", "BadJwt")
        h.assertFails("Bearer \(parts[0].replacingOccurrences(of: "e", with: "+")).\(parts[1]).\(parts[2])", "BadJwt")
    }

    func testMissingJTI() {
        h.assertFails("Bearer \(h.token(payload: h.payload(jti: "null")))", "BadJwt")
        h.assertFails("Bearer \(h.token(payload: h.payload(jti: "\"\"")))", "BadJwt")
        h.assertFails("Bearer \(h.token(payload: h.payload(jti: "\"" + String(repeating: "j", count: 300) + "\"")))", "BadJwt")
    }

    // MARK: check 2

    func testForbiddenAlgorithms() {
        for alg in ["none", "HS256", "RS256", "ES384", "EdDSA", "es256k"] {
            h.assertFails("Bearer \(h.token(header: "{\"typ\":\"JWT\",\"alg\":\"\(alg)\"}"))", "BadJwt")
        }
        h.assertFails("Bearer \(h.token(header: "{\"typ\":\"JWT\"}"))", "BadJwt")
        // alg none with an empty signature, the classic.
        let unsigned = Base64URL.encode(Array("{\"alg\":\"none\"}".utf8)) + "." + Base64URL.encode(Array(h.payload().utf8)) + "."
        h.assertFails("Bearer \(unsigned)", "BadJwt")
    }

    func testForbiddenTypes() {
        for typ in ["at+jwt", "refresh+jwt", "dpop+jwt", "AT+JWT", "JOSE"] {
            h.assertFails("Bearer \(h.token(header: "{\"typ\":\"\(typ)\",\"alg\":\"ES256K\"}"))", "BadJwtType")
        }
    }

    func testKidMustBeAtproto() {
        h.assertFails("Bearer \(h.token(header: "{\"alg\":\"ES256K\",\"kid\":\"#atproto_label\"}"))", "BadJwt")
        h.assertFails("Bearer \(h.token(header: "{\"alg\":\"ES256K\",\"kid\":\"did:plc:x#atproto\"}"))", "BadJwt")
        h.assertFails("Bearer \(h.token(header: "{\"alg\":\"ES256K\",\"crit\":[\"exp\"]}"))", "BadJwt")
    }

    // MARK: check 3

    func testExpired() throws {
        h.assertFails("Bearer \(h.token(payload: h.payload(exp: "\(h.now - 61)", iat: "\(h.now - 120)")))", "JwtExpired")
        XCTAssertNoThrow(try h.verify("Bearer \(h.token(payload: h.payload(exp: "\(h.now - 59)", iat: "\(h.now - 120)")))"),
                         "within the clock skew")
    }

    func testExpiredAfterTimePasses() throws {
        let token = h.token()
        h.clock.advance(by: 121)
        h.assertFails("Bearer \(token)", "JwtExpired")
    }

    func testLifetimeTooLong() throws {
        h.assertFails("Bearer \(h.token(payload: h.payload(exp: "\(h.now + 3600 + 61)")))", "BadJwt")
        XCTAssertNoThrow(try h.verify("Bearer \(h.token(payload: h.payload(exp: "\(h.now + 3600 + 59)")))"))
    }

    func testExpMustBeANumber() {
        h.assertFails("Bearer \(h.token(payload: h.payload(exp: "\"\(h.now + 60)\"")))", "BadJwt")
        h.assertFails("Bearer \(h.token(payload: h.payload(exp: "true")))", "BadJwt")
        let withoutExp = h.payload().replacingOccurrences(of: "\"exp\":\(h.now + 60),", with: "")
        XCTAssertFalse(withoutExp.contains("\"exp\""))
        h.assertFails("Bearer \(h.token(payload: withoutExp))", "BadJwt")
    }

    func testIssuedInTheFuture() throws {
        h.assertFails("Bearer \(h.token(payload: h.payload(iat: "\(h.now + 61)")))", "BadJwt")
        h.assertFails("Bearer \(h.token(payload: h.payload(iat: "\"soon\"")))", "BadJwt")
        XCTAssertNoThrow(try h.verify("Bearer \(h.token(payload: h.payload(iat: "\(h.now + 40)")))"), "PDS clocks run ahead")
        XCTAssertNoThrow(try h.verify("Bearer \(h.token(payload: h.payload(iat: nil)))"), "iat is optional")
    }

    // MARK: check 4

    func testWrongAudience() {
        for aud in ["\"did:web:other.example.com\"", "\"\(Fixtures.serviceDID)#atproto_pds\"", "\"DID:WEB:MLS.EXAMPLE.COM\"",
                    "[\"\(Fixtures.serviceDID)\"]", "null"] {
            h.assertFails("Bearer \(h.token(payload: h.payload(aud: aud)))", "BadJwtAudience")
        }
        h.assertFails("Bearer \(h.token(payload: h.payload(aud: nil)))", "BadJwtAudience")
    }

    // MARK: check 5

    func testLexiconMethod() {
        h.assertFails("Bearer \(h.token(payload: h.payload(lxm: nil)))", "BadJwtLexiconMethod")
        h.assertFails("Bearer \(h.token(payload: h.payload(lxm: "\"blue.catbird.mls.sendMessage\"")))", "BadJwtLexiconMethod")
        h.assertFails("Bearer \(h.token(payload: h.payload(lxm: "\"blue.catbird.mls.*\"")))", "BadJwtLexiconMethod")
        h.assertFails("Bearer \(h.token(payload: h.payload(lxm: "5")))", "BadJwtLexiconMethod")
        h.assertFails("Bearer \(h.token())", "BadJwtLexiconMethod", nsid: "blue.catbird.mls.getGroupinfo")
        h.assertFails("Bearer \(h.token(payload: h.payload(lxm: "\"\"")))", "BadJwtLexiconMethod", nsid: "")
    }

    // MARK: check 6

    func testBadIssuer() {
        for iss in ["\"\(h.k256DID)#atproto\"", "\"alice.example.com\"", "\"did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme\"",
                    "\"did:web:example.com:path\"", "\"did:web:example.com%3A443\"", "\"did:plc:short\"", "42",
                    "\"did:web:" + String(repeating: "a.", count: 1100) + "com\""] {
            h.assertFails("Bearer \(h.token(payload: h.payload(iss: iss)))", "BadJwtIss")
        }
        let withoutIss = h.payload().replacingOccurrences(of: "\"iss\":\"\(h.k256DID)\",", with: "")
        h.assertFails("Bearer \(h.token(payload: withoutIss))", "BadJwtIss")
        XCTAssertEqual(h.plc.totalRequests, 0, "issuer checks happen before any network I/O")
    }

    // MARK: checks 7–8

    func testUnknownDID() {
        let stranger = Fixtures.randomPLC()
        let token = h.token(payload: h.payload(did: stranger))
        h.assertFails("Bearer \(token)", "BadJwtSignature")
        h.assertFails("Bearer \(h.token(payload: h.payload(did: stranger)))", "BadJwtSignature")
        XCTAssertEqual(h.fetches(stranger), 1, "not-found is cached")
    }

    func testGoneDID() {
        let tombstoned = Fixtures.randomPLC()
        h.plc.set("/\(tombstoned)", .raw(Array("HTTP/1.1 410 Gone\r\nContent-Length: 0\r\n\r\n".utf8)))
        h.assertFails("Bearer \(h.token(payload: h.payload(did: tombstoned)))", "BadJwtSignature")
    }

    func testDocumentWithoutAtprotoKey() {
        let did = Fixtures.randomPLC()
        h.plc.setJSON("/\(did)", Fixtures.didDocument(id: did.rawValue, verificationMethods: [
            Fixtures.verificationMethod(did: did.rawValue, id: "#atproto_label", multibase: Multikey.encode(publicKey: h.k256.publicKey)),
        ]))
        h.assertFails("Bearer \(h.token(payload: h.payload(did: did)))", "BadJwtSignature")
    }

    func testDocumentForAnotherDID() {
        let did = Fixtures.randomPLC()
        h.plc.setJSON("/\(did)", Fixtures.multikeyDocument(did: h.k256DID, key: h.k256))
        h.assertFails("Bearer \(h.token(payload: h.payload(did: did)))", "BadJwtSignature")
    }

    func testKeyCurveMustMatchAlg() {
        // The P-256 user's token claims ES256K, and the reverse.
        h.assertFails("Bearer \(h.token(payload: h.payload(did: h.p256DID), key: h.k256))", "BadJwtSignature")
        h.assertFails("Bearer \(h.token(header: "{\"alg\":\"ES256\"}", payload: h.payload(did: h.k256DID), key: h.p256))", "BadJwtSignature")
    }

    func testSignedByAnotherKey() throws {
        let intruder = try ECDSAPrivateKey.generate(curve: .secp256k1)
        h.assertFails("Bearer \(h.token(key: intruder))", "BadJwtSignature")
    }

    func testTamperedPayload() {
        let parts = h.token().split(separator: ".").map(String.init)
        let forged = h.payload(lxm: "\"blue.catbird.mls.getGroupInfo\"", did: h.p256DID)
        h.assertFails("Bearer \(parts[0]).\(Base64URL.encode(Array(forged.utf8))).\(parts[2])", "BadJwtSignature")
        var signature = Base64URL.decode(parts[2])!
        signature[10] ^= 1
        h.assertFails("Bearer \(parts[0]).\(parts[1]).\(Base64URL.encode(signature))", "BadJwtSignature")
    }

    func testDERSignatureIsRejected() throws {
        let header = Base64URL.encode(Array("{\"alg\":\"ES256K\"}".utf8))
        let body = Base64URL.encode(Array(h.payload().utf8))
        let der = try h.k256.signature(for: Array("\(header).\(body)".utf8), hash: .sha256).der
        XCTAssertTrue(h.k256.publicKey.isValidSignature(der: der, for: Array("\(header).\(body)".utf8), hash: .sha256))
        h.assertFails("Bearer \(header).\(body).\(Base64URL.encode(der))", "BadJwtSignature")
        XCTAssertEqual(h.plc.totalRequests, 0, "malformed signatures fail before resolution")
    }

    func testHighSIsRejectedWhenStrict() throws {
        let highS = try highSToken(h)
        h.assertFails("Bearer \(highS)", "BadJwtSignature")

        let lenient = try VerifierHarness(requireLowS: false)
        XCTAssertEqual(try lenient.verify("Bearer \(try highSToken(lenient))"), lenient.k256DID)
    }

    /// A valid low-S signature with s replaced by n − s: still valid ECDSA, but high-S.
    private func highSToken(_ harness: VerifierHarness) throws -> String {
        let parts = harness.token().split(separator: ".")
        let raw = try XCTUnwrap(Base64URL.decode(parts[2]))
        XCTAssertTrue(ECDSA.isLowS(raw: raw, curve: .secp256k1))
        let n = try XCTUnwrap(hex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")) // secp256k1 order
        var negated = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            let difference = Int(n[index]) - Int(raw[32 + index]) - borrow
            negated[index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        let flipped = Array(raw[..<32]) + negated
        XCTAssertFalse(ECDSA.isLowS(raw: flipped, curve: .secp256k1))
        XCTAssertTrue(harness.k256.publicKey.isValidSignature(raw: flipped, for: Array("\(parts[0]).\(parts[1])".utf8), hash: .sha256))
        return "\(parts[0]).\(parts[1]).\(Base64URL.encode(flipped))"
    }

    func testKeyRotationSucceedsThroughForcedRefresh() throws {
        XCTAssertNoThrow(try h.verify("Bearer \(h.token())"))
        let rotated = try ECDSAPrivateKey.generate(curve: .secp256k1)
        h.publish(h.k256DID, key: rotated)
        h.clock.advance(by: 5)
        XCTAssertEqual(try h.verify("Bearer \(h.token(key: rotated))"), h.k256DID)
        XCTAssertEqual(h.fetches(h.k256DID), 2, "one initial resolution, one forced refresh")
        // The old key is gone for good.
        h.assertFails("Bearer \(h.token())", "BadJwtSignature")
    }

    /// `check` answers from the cache alone: it names the DID to fetch instead of fetching it.
    func testCheck_NeverWaitsOnTheNetwork() throws {
        let header = "Bearer \(h.token())"
        XCTAssertEqual(try h.verifier.check(authorization: header, lexiconMethod: Fixtures.nsid), .needsKey(h.k256DID, forced: false))
        XCTAssertEqual(h.plc.totalRequests, 0)
        _ = try h.resolver.signingKey(for: h.k256DID, forceRefresh: false)
        guard case .verified(let claim) = try h.verifier.check(authorization: header, lexiconMethod: Fixtures.nsid) else {
            return XCTFail("the cached key verifies the token")
        }
        XCTAssertEqual(claim.did, h.k256DID)
        // A signature the cached key does not verify: check 8's one refresh is asked for, then refused.
        let rotated = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let signedByRotated = "Bearer \(h.token(key: rotated))"
        XCTAssertEqual(try h.verifier.check(authorization: signedByRotated, lexiconMethod: Fixtures.nsid), .needsKey(h.k256DID, forced: true))
        XCTAssertThrowsError(try h.verifier.check(authorization: signedByRotated, lexiconMethod: Fixtures.nsid)) {
            XCTAssertEqual(($0 as? AuthError)?.name, "BadJwtSignature")
        }
        XCTAssertEqual(h.fetches(h.k256DID), 1, "check itself fetched nothing")
        // Checks 1–6 fail before the cache is even asked.
        XCTAssertThrowsError(try h.verifier.check(authorization: "Bearer \(h.token(payload: h.payload(lxm: "\"x.y.z\"", did: Fixtures.randomPLC())))",
                                                  lexiconMethod: Fixtures.nsid)) {
            XCTAssertEqual(($0 as? AuthError)?.name, "BadJwtLexiconMethod")
        }
    }

    func testRotationToAnotherCurve() throws {
        XCTAssertNoThrow(try h.verify("Bearer \(h.token())"))
        let rotated = try ECDSAPrivateKey.generate(curve: .p256)
        h.publish(h.k256DID, key: rotated)
        XCTAssertEqual(try h.verify("Bearer \(h.token(header: "{\"alg\":\"ES256\"}", key: rotated))"), h.k256DID)
    }

    func testBadSignatureFloodRefreshesAtMostOncePerMinute() throws {
        let intruder = try ECDSAPrivateKey.generate(curve: .secp256k1)
        for _ in 0..<50 {
            h.assertFails("Bearer \(h.token(key: intruder))", "BadJwtSignature")
            h.clock.advance(by: 1)
        }
        // 50 s elapsed: the first resolution and a single forced refresh.
        XCTAssertEqual(h.fetches(h.k256DID), 2)
        h.clock.advance(by: 10)
        for _ in 0..<50 {
            h.assertFails("Bearer \(h.token(key: intruder))", "BadJwtSignature")
        }
        XCTAssertEqual(h.fetches(h.k256DID), 3, "one more forced refresh after 60 s")
    }

    func testEverySingleCharacterMutationIsRejected() throws {
        let token = h.token()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var characters = Array(token)
        for index in characters.indices where characters[index] != "." {
            let original = characters[index]
            let replacement = alphabet[(alphabet.firstIndex(of: original)! + 17) % alphabet.count]
            characters[index] = replacement
            XCTAssertThrowsError(try h.verify("Bearer \(String(characters))"), "mutation at \(index)")
            characters[index] = original
        }
        XCTAssertEqual(try h.verify("Bearer \(token)"), h.k256DID, "the unmutated token still passes")
    }

    // MARK: check 9

    func testReplayedTokenIsRejected() throws {
        let token = h.token()
        XCTAssertNoThrow(try h.verify("Bearer \(token)"))
        h.assertFails("Bearer \(token)", "BadJwt")
        // The same jti from another issuer is a different pair.
        let jti = "\"shared-nonce\""
        XCTAssertNoThrow(try h.verify("Bearer \(h.token(payload: h.payload(jti: jti)))"))
        XCTAssertNoThrow(try h.verify("Bearer \(h.token(header: "{\"alg\":\"ES256\"}", payload: h.payload(jti: jti, did: h.p256DID), key: h.p256))"))
    }

    func testReplayIsRecordedOnlyAfterTheSignatureVerifies() throws {
        let intruder = try ECDSAPrivateKey.generate(curve: .secp256k1)
        let jti = "\"victim-nonce\""
        h.assertFails("Bearer \(h.token(payload: h.payload(jti: jti), key: intruder))", "BadJwtSignature")
        XCTAssertNoThrow(try h.verify("Bearer \(h.token(payload: h.payload(jti: jti)))"))
    }

    func testReplayStoreOutageIsServiceUnavailable() throws {
        struct Broken: ReplayStore {
            func remember(iss: String, jti: String, until: Date) throws -> Bool { throw CocoaError(.fileNoSuchFile) }
        }
        let broken = try VerifierHarness(replayStore: Broken())
        XCTAssertThrowsError(try broken.verify("Bearer \(broken.token())")) {
            XCTAssertEqual(($0 as? AuthError)?.name, "ServiceUnavailable")
            XCTAssertEqual(($0 as? AuthError)?.status, 503)
        }
    }

    // MARK: order

    func testChecksRunInOrder() {
        // Wrong typ and expired: check 2 wins.
        h.assertFails("Bearer \(h.token(header: "{\"typ\":\"at+jwt\",\"alg\":\"ES256K\"}", payload: h.payload(exp: "1")))", "BadJwtType")
        // Expired and wrong audience: check 3 wins.
        h.assertFails("Bearer \(h.token(payload: h.payload(aud: "\"did:web:x.com\"", exp: "1")))", "JwtExpired")
        // Wrong audience and wrong lxm: check 4 wins.
        h.assertFails("Bearer \(h.token(payload: h.payload(aud: "\"did:web:x.com\"", lxm: "\"x.y.z\"")))", "BadJwtAudience")
        // Wrong lxm and bad iss: check 5 wins.
        h.assertFails("Bearer \(h.token(payload: h.payload(iss: "\"nobody\"", lxm: "\"x.y.z\"")))", "BadJwtLexiconMethod")
        XCTAssertEqual(h.plc.totalRequests, 0)
    }
}
