import Basics
import Foundation
import JSON
import Primitives
@testable import Push
import Synchronization
import XCTest

/// The JWTs the push services want: the APNs provider token (ES256, `kid`/`iss`/`iat`, replaced
/// between 20 and 60 minutes), the VAPID token (RFC 8292), checked as their verifiers would.
final class PushTokenTests: XCTestCase {
    final class Clock: Sendable {
        let seconds = Mutex<Double>(1_800_000_000)
        var now: @Sendable () -> Double { { self.seconds.withLock { $0 } } }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    /// Header and claims of a compact ES256 JWS whose signature verifies with `key`.
    func verified(_ token: String, key: ECDSAPublicKey, file: StaticString = #filePath, line: UInt = #line) throws -> ([String: Any], [String: Any]) {
        let parts = token.split(separator: ".").map(String.init)
        XCTAssertEqual(parts.count, 3, file: file, line: line)
        let signature = try XCTUnwrap(Base64.decode(parts[2], alphabet: .url))
        XCTAssertEqual(signature.count, 64, "r || s", file: file, line: line)
        XCTAssertTrue(key.isValidSignature(raw: signature, for: Array((parts[0] + "." + parts[1]).utf8), hash: .sha256),
                      file: file, line: line)
        let header = try JSONSerialization.jsonObject(with: Data(try XCTUnwrap(Base64.decode(parts[0], alphabet: .url)))) as! [String: Any]
        let claims = try JSONSerialization.jsonObject(with: Data(try XCTUnwrap(Base64.decode(parts[1], alphabet: .url)))) as! [String: Any]
        return (header, claims)
    }

    func testTheProviderToken_IsReused_ThenReplacedBetween20And60Minutes() throws {
        let key = try ECDSAPrivateKey.generate(curve: .p256)
        let clock = Clock()
        let provider = APNsProviderToken(key: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ", now: clock.now)
        let first = try provider.token()
        let (header, claims) = try verified(first, key: key.publicKey)
        XCTAssertEqual(header["alg"] as? String, "ES256")
        XCTAssertEqual(header["kid"] as? String, "ABC123DEFG")
        XCTAssertEqual(claims["iss"] as? String, "DEF123GHIJ")
        XCTAssertEqual(claims["iat"] as? Int, 1_800_000_000)

        clock.advance(49 * 60)
        XCTAssertEqual(try provider.token(), first, "reused for 50 minutes")
        // ExpiredProviderToken before 20 minutes would only earn TooManyProviderTokenUpdates.
        clock.advance(-40 * 60)
        XCTAssertEqual(try provider.expired(first), first)
        clock.advance(11 * 60 + 1)
        let forced = try provider.expired(first)
        XCTAssertNotEqual(forced, first, "replaced after 20 minutes when APNs says it expired")
        XCTAssertEqual(try provider.expired(first), forced, "a second report of the old token changes nothing")
        clock.advance(50 * 60)
        let renewed = try provider.token()
        XCTAssertNotEqual(renewed, forced)
        XCTAssertEqual(try verified(renewed, key: key.publicKey).1["iat"] as? Int, 1_800_000_000 + 70 * 60 + 1)
    }

    func testTheVAPIDHeader_NamesTheOriginAndKey_AndIsCachedPerOrigin() throws {
        let key = try ECDSAPrivateKey.generate(curve: .p256)
        let clock = Clock()
        let vapid = VAPID(key: key, subject: "mailto:ops@example.com", now: clock.now)
        let header = try vapid.authorization(origin: "https://push.example.net")
        XCTAssertTrue(header.hasPrefix("vapid t="))
        let parameters = Dictionary(uniqueKeysWithValues: header.dropFirst(6).split(separator: ",").map { part in
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            return (pair[0], pair[1])
        })
        XCTAssertEqual(parameters["k"], Base64.encode(key.publicKey.uncompressed, padding: false, alphabet: .url))
        let (jwtHeader, claims) = try verified(try XCTUnwrap(parameters["t"]), key: key.publicKey)
        XCTAssertEqual(jwtHeader["alg"] as? String, "ES256")
        XCTAssertEqual(claims["aud"] as? String, "https://push.example.net")
        XCTAssertEqual(claims["sub"] as? String, "mailto:ops@example.com")
        let exp = try XCTUnwrap(claims["exp"] as? Double)
        XCTAssertLessThanOrEqual(exp, 1_800_000_000 + 86_400, "RFC 8292 §2: at most 24 hours")
        XCTAssertEqual(try vapid.authorization(origin: "https://push.example.net"), header)
        XCTAssertNotEqual(try vapid.authorization(origin: "https://other.example"), header)
        clock.advance(11.5 * 3600)
        XCTAssertNotEqual(try vapid.authorization(origin: "https://push.example.net"), header, "renewed an hour before it ends")
    }
}
