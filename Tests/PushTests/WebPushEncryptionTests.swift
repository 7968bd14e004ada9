import Basics
import Primitives
@testable import Push
import XCTest

/// RFC 8291 message encryption, against the RFC's own example (§5, Appendix A) byte for byte, and
/// round trips through a decryptor written here from RFC 8188 §2 (the user agent's side).
final class WebPushEncryptionTests: XCTestCase {
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_"
        + "yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

    func bytes(_ text: String) -> [UInt8] { Base64.decode(text, alphabet: .url)! }

    func testTheRFCExample_IsReproducedExactly() throws {
        let body = try WebPushEncryption.encrypt(Array(Self.plaintext.utf8), to: (bytes(Self.uaPublic), bytes(Self.auth)),
                                                 senderPrivateKey: bytes(Self.asPrivate), salt: bytes(Self.salt))
        XCTAssertEqual(body, bytes(Self.body))
        XCTAssertEqual(try Self.decrypt(body, privateKey: bytes(Self.uaPrivate), auth: bytes(Self.auth)), Array(Self.plaintext.utf8))
    }

    func testFreshKeysAndSalts_RoundTrip_AndDiffer() throws {
        let keys = (bytes(Self.uaPublic), bytes(Self.auth))
        for size in [0, 1, 100, WebPushEncryption.maxPlaintext] {
            let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) }
            let first = try WebPushEncryption.encrypt(plaintext, to: keys)
            let second = try WebPushEncryption.encrypt(plaintext, to: keys)
            XCTAssertNotEqual(first, second)
            XCTAssertLessThanOrEqual(first.count, 4096)
            XCTAssertEqual(try Self.decrypt(first, privateKey: bytes(Self.uaPrivate), auth: bytes(Self.auth)), plaintext)
        }
        XCTAssertThrowsError(try WebPushEncryption.encrypt([UInt8](repeating: 0, count: WebPushEncryption.maxPlaintext + 1), to: keys))
        XCTAssertThrowsError(try WebPushEncryption.encrypt([1], to: (Array(repeating: 4, count: 65), bytes(Self.auth))), "a point off the curve")
        XCTAssertThrowsError(try WebPushEncryption.encrypt([1], to: (bytes(Self.uaPublic), [1, 2, 3])), "a short auth secret")
    }

    /// The user agent's side (RFC 8291 §3.4, RFC 8188 §2): one record, its last byte the 0x02 delimiter.
    static func decrypt(_ body: [UInt8], privateKey: [UInt8], auth: [UInt8]) throws -> [UInt8] {
        let salt = Array(body[0..<16])
        let idLength = Int(body[20])
        let senderPublic = Array(body[21..<21 + idLength])
        let userAgentPublic = try ECDH.publicKey(curve: .p256, privateKey: privateKey)
        let shared = try ECDH.sharedSecret(curve: .p256, privateKey: privateKey, publicKey: senderPublic)
        let keyPRK = try HKDF.extract(salt: auth, ikm: shared, hash: .sha256)
        let ikm = try HKDF.expand(prk: keyPRK, info: Array("WebPush: info\0".utf8) + userAgentPublic + senderPublic,
                                  length: 32, hash: .sha256)
        let prk = try HKDF.extract(salt: salt, ikm: ikm, hash: .sha256)
        let cek = try HKDF.expand(prk: prk, info: Array("Content-Encoding: aes128gcm\0".utf8), length: 16, hash: .sha256)
        let nonce = try HKDF.expand(prk: prk, info: Array("Content-Encoding: nonce\0".utf8), length: 12, hash: .sha256)
        var record = try AEADAlgorithm.aes128GCM.open(key: cek, nonce: nonce, ciphertext: Array(body[(21 + idLength)...]),
                                                      authenticating: [])
        while record.last == 0 { record.removeLast() }
        XCTAssertEqual(record.last, 2, "the last record's delimiter")
        return Array(record.dropLast())
    }
}
