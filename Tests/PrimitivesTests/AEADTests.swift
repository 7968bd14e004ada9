import Primitives
import XCTest

final class AEADTests: XCTestCase {
    func test_chacha20Poly1305_matchesRFC8439Tag() throws {
        let key = Array(UInt8(0x80)...UInt8(0x9f))
        let nonce = try hex("070000004041424344454647")
        let aad = try hex("50515253c0c1c2c3c4c5c6c7")
        let plaintext = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let sealed = try AEADAlgorithm.chacha20Poly1305.seal(key: key, nonce: nonce, plaintext: plaintext, authenticating: aad)
        XCTAssertEqual(Array(sealed.suffix(16)), try hex("1ae10b594f09e26a7e902ecbd0600691"))
        XCTAssertEqual(try AEADAlgorithm.chacha20Poly1305.open(key: key, nonce: nonce, ciphertext: sealed, authenticating: aad), plaintext)
    }

    func test_aes128GCM_matchesMcGrewViegaTestCase2() throws {
        let sealed = try AEADAlgorithm.aes128GCM.seal(
            key: [UInt8](repeating: 0, count: 16), nonce: [UInt8](repeating: 0, count: 12),
            plaintext: [UInt8](repeating: 0, count: 16), authenticating: [])
        XCTAssertEqual(sealed, try hex("0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf"))
    }

    func test_roundTrip_tamperAndWrongKeyFail_forEveryAEAD() throws {
        for aead in AEADAlgorithm.allCases {
            let key = SecureRandom.bytes(aead.keySize)
            let nonce = SecureRandom.bytes(aead.nonceSize)
            for plaintext in [[], Array("x".utf8), SecureRandom.bytes(1024)] {
                let aad = Array("aad".utf8)
                let sealed = try aead.seal(key: key, nonce: nonce, plaintext: plaintext, authenticating: aad)
                XCTAssertEqual(sealed.count, plaintext.count + aead.tagSize)
                XCTAssertEqual(try aead.open(key: key, nonce: nonce, ciphertext: sealed, authenticating: aad), plaintext)
                for index in [0, sealed.count - 1] {
                    var tampered = sealed
                    tampered[index] ^= 0x80
                    XCTAssertThrowsError(try aead.open(key: key, nonce: nonce, ciphertext: tampered, authenticating: aad)) {
                        XCTAssertEqual($0 as? CryptoError, .decryptionFailed)
                    }
                }
                XCTAssertThrowsError(try aead.open(key: key, nonce: nonce, ciphertext: sealed, authenticating: [])) {
                    XCTAssertEqual($0 as? CryptoError, .decryptionFailed)
                }
                XCTAssertThrowsError(try aead.open(key: SecureRandom.bytes(aead.keySize), nonce: nonce, ciphertext: sealed, authenticating: aad))
                XCTAssertThrowsError(try aead.open(key: key, nonce: SecureRandom.bytes(12), ciphertext: sealed, authenticating: aad))
            }
        }
    }

    func test_invalidSizes_areRejectedWithoutTrapping() throws {
        for aead in AEADAlgorithm.allCases {
            let key = SecureRandom.bytes(aead.keySize)
            let nonce = SecureRandom.bytes(12)
            XCTAssertThrowsError(try aead.seal(key: Array(key.dropLast()), nonce: nonce, plaintext: [1], authenticating: [])) {
                XCTAssertEqual($0 as? CryptoError, .invalidKey)
            }
            XCTAssertThrowsError(try aead.seal(key: key, nonce: [1, 2, 3], plaintext: [1], authenticating: []))
            XCTAssertThrowsError(try aead.open(key: key, nonce: nonce, ciphertext: [1, 2, 3], authenticating: [])) {
                XCTAssertEqual($0 as? CryptoError, .decryptionFailed)
            }
            XCTAssertThrowsError(try aead.open(key: key, nonce: nonce, ciphertext: [], authenticating: []))
            XCTAssertThrowsError(try aead.open(key: [], nonce: nonce, ciphertext: SecureRandom.bytes(16), authenticating: []))
        }
    }
}
